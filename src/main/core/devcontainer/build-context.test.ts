import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { extract } from 'tar-stream'
import { describe, expect, it } from 'vitest'
import { contextTar, OUTSIDE_DOCKERFILE, resolveBuildContext } from './build-context'

/** A project folder: .devcontainer/ with a Dockerfile, a src/ file, a link out of the folder, and a file beside it. */
function project(): { root: string; config: string; outsideFile: string } {
  const top = mkdtempSync(join(tmpdir(), 'berth-dc-'))
  const root = join(top, 'project')
  const config = join(root, '.devcontainer')
  mkdirSync(config, { recursive: true })
  mkdirSync(join(root, 'src'))
  writeFileSync(join(config, 'Dockerfile'), 'FROM scratch\n')
  writeFileSync(join(root, 'src', 'app.txt'), 'app')
  const outsideFile = join(top, 'secret.txt')
  writeFileSync(outsideFile, 'the laptop\'s own')
  symlinkSync(outsideFile, join(root, 'src', 'link'))
  symlinkSync(outsideFile, join(config, 'Linked.Dockerfile'))
  return { root, config, outsideFile }
}

async function entries(s: NodeJS.ReadableStream): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const x = extract()
  x.on('entry', (h, body, next) => {
    const chunks: Buffer[] = []
    body.on('data', (d: unknown) => chunks.push(d as Buffer))
    body.on('end', () => {
      out[h.name] = h.type === 'symlink' ? `-> ${h.linkname ?? ''}` : h.type === 'directory' ? '/' : Buffer.concat(chunks).toString()
      next()
    })
  })
  const done = new Promise<void>((res, rej) => x.on('finish', () => res()).on('error', rej))
  s.pipe(x)
  await done
  return out
}

describe('a devcontainer build context', () => {
  it('sends the context folder as a tar, links as links, and a Dockerfile from outside the context beside it', async () => {
    const p = project()
    const ctx = await resolveBuildContext(p.root, p.config, { dockerfile: 'Dockerfile', context: '../src' })
    expect(ctx.dockerfile).toBe(OUTSIDE_DOCKERFILE)
    const tar = await entries(contextTar(ctx))
    expect(tar).toEqual({ 'app.txt': 'app', link: `-> ${p.outsideFile}`, [OUTSIDE_DOCKERFILE]: 'FROM scratch\n' })
    const whole = await resolveBuildContext(p.root, p.config, { dockerfile: 'Dockerfile', context: '..' })
    expect(whole.dockerfile).toBe('.devcontainer/Dockerfile')
  })

  it("leaves out what the context's .dockerignore names, as Docker's client does, but never the Dockerfile nor the .dockerignore", async () => {
    const p = project()
    const ctx = join(p.root, 'src')
    mkdirSync(join(ctx, 'node_modules', 'dep'), { recursive: true })
    writeFileSync(join(ctx, 'node_modules', 'dep', 'index.js'), 'dep')
    mkdirSync(join(ctx, 'logs'))
    writeFileSync(join(ctx, 'logs', 'a.log'), 'a')
    writeFileSync(join(ctx, 'logs', 'keep.log'), 'keep')
    writeFileSync(join(ctx, '.env'), 'TOKEN=secret')
    writeFileSync(join(ctx, 'Dockerfile'), 'FROM scratch\n')
    writeFileSync(join(ctx, '.dockerignore'), '# not for the image\nnode_modules\n.env\nlogs\n!logs/keep.log\nDockerfile\n.dockerignore\nlink\n')
    const tar = await entries(contextTar(await resolveBuildContext(p.root, p.config, { dockerfile: '../src/Dockerfile', context: '../src' })))
    expect(tar).toEqual({
      '.dockerignore': '# not for the image\nnode_modules\n.env\nlogs\n!logs/keep.log\nDockerfile\n.dockerignore\nlink\n',
      Dockerfile: 'FROM scratch\n',
      'app.txt': 'app',
      'logs/keep.log': 'keep',
    })
  })

  it('refuses a Dockerfile or a context outside the project folder, by path or by link', async () => {
    const p = project()
    await expect(resolveBuildContext(p.root, p.config, { dockerfile: '../../secret.txt', context: '.' })).rejects.toThrow(/is not a file inside .*project's own folder/)
    await expect(resolveBuildContext(p.root, p.config, { dockerfile: 'Linked.Dockerfile', context: '.' })).rejects.toThrow(/not a file inside/)
    await expect(resolveBuildContext(p.root, p.config, { dockerfile: 'Dockerfile', context: '../..' })).rejects.toThrow(/build context "..\/.." is not a folder inside/)
    await expect(resolveBuildContext(p.root, p.config, { dockerfile: '/etc/passwd', context: '.' })).rejects.toThrow(/not a file inside/)
    await expect(resolveBuildContext(p.root, p.config, { dockerfile: 'Missing', context: '.' })).rejects.toThrow(/not a file inside/)
  })
})
