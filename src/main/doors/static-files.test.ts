import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY, IMMUTABLE, readStatic } from './static-files'

describe('serving the renderer build', () => {
  const root = mkdtempSync(join(tmpdir(), 'berth-static-'))
  const outside = join(root, '..', `secret-${process.pid}.txt`)
  mkdirSync(join(root, 'assets'))
  mkdirSync(join(root, '.vite'))
  writeFileSync(join(root, 'index.html'), '<html>')
  writeFileSync(join(root, 'assets', 'app.js'), 'x')
  writeFileSync(join(root, 'assets', 'boot-DKiHg1YF.js'), 'x')
  writeFileSync(join(root, '.vite', 'manifest.json'), '{}')
  writeFileSync(outside, 'secret')
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
    rmSync(outside, { force: true })
  })

  it('serves files under its folder with their types', async () => {
    expect((await readStatic(root, '/'))?.contentType).toBe('text/html; charset=utf-8')
    expect((await readStatic(root, '/assets/app.js'))?.contentType).toBe('text/javascript; charset=utf-8')
  })

  it('lets a browser keep only the build\'s content-named assets; the page itself is read fresh', async () => {
    expect((await readStatic(root, '/assets/boot-DKiHg1YF.js'))?.cacheControl).toBe(IMMUTABLE)
    for (const p of ['/', '/index.html', '/assets/app.js']) expect((await readStatic(root, p))?.cacheControl).toBe('no-store')
  })

  it('never serves anything outside it, hidden, or a folder', async () => {
    for (const p of [`/../secret-${process.pid}.txt`, `/%2e%2e/secret-${process.pid}.txt`, '/.vite/manifest.json', '/assets', '/nope.js', '/assets/%00.js', '/%E0%A4%A']) {
      expect(await readStatic(root, p)).toBeUndefined()
    }
  })

  it('allows scripts only from its own origin', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/)
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'")
  })
})
