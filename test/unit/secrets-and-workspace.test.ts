// The secret store's file, the archive that carries secrets into a session, and the parsing of
// what a workspace has not saved yet.
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { extract } from 'tar-stream'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSecretStore } from '../../src/main/core/secrets/secret-store'
import { ownerFor, secretsArchive } from '../../src/main/core/secrets/secret-installer'
import { parseStatus } from '../../src/main/core/workspace/workspace-scripts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('the file secret store', () => {
  it('keeps values in a 0600 file, names only in listings, exact bytes back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-secrets-'))
    dirs.push(dir)
    const store = new FileSecretStore(dir)
    const value = Buffer.from([0, 1, 2, 255, 10])
    expect(store.set('B_KEY', value).created).toBe(true)
    expect(store.set('A_TOKEN', Buffer.from('x')).created).toBe(true)
    expect(store.set('A_TOKEN', Buffer.from('y')).created).toBe(false)
    expect(statSync(store.file).mode & 0o777).toBe(0o600)
    expect(store.get('B_KEY')).toEqual(value)
    expect(store.list().map((s) => s.name)).toEqual(['A_TOKEN', 'B_KEY'])
    expect(readFileSync(store.file, 'utf8')).not.toContain('y"')
    expect(store.remove('A_TOKEN')).toBe(true)
    expect(store.remove('A_TOKEN')).toBe(false)
    expect(store.get('A_TOKEN')).toBeUndefined()
  })

  it('lets a codec decide how values sit at rest (safeStorage in the desktop app)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-secrets-'))
    dirs.push(dir)
    const rot = { encode: (v: Buffer) => Buffer.from(v.map((b) => b ^ 0x5a)).toString('hex'), decode: (s: string) => Buffer.from(Buffer.from(s, 'hex').map((b) => b ^ 0x5a)) }
    const store = new FileSecretStore(dir, rot, 'other.json')
    store.set('K', Buffer.from('plain'))
    expect(readFileSync(store.file, 'utf8')).not.toContain(Buffer.from('plain').toString('base64'))
    expect(store.get('K')?.toString()).toBe('plain')
  })
})

describe('the secrets archive', () => {
  it('gives each file to the container user, readable by it only', async () => {
    expect(ownerFor(undefined)).toEqual({ uid: 0, gid: 0, mode: 0o400 })
    expect(ownerFor('1000:1001')).toEqual({ uid: 1000, gid: 1001, mode: 0o400 })
    expect(ownerFor('1000')).toEqual({ uid: 1000, gid: 1000, mode: 0o400 })
    expect(ownerFor('app').mode).toBe(0o444)
    const tar = await secretsArchive([{ name: 'TOKEN', value: Buffer.from('s3cret') }], ownerFor('1000'))
    const entries: Array<{ name: string; mode?: number; uid?: number; body: string }> = []
    await new Promise<void>((resolve, reject) => {
      const x = extract()
      x.on('entry', (h, stream, next) => {
        const chunks: Buffer[] = []
        stream.on('data', (c: unknown) => chunks.push(c as Buffer))
        stream.on('end', () => {
          entries.push({ name: h.name, mode: h.mode, uid: h.uid, body: Buffer.concat(chunks).toString() })
          next()
        })
      })
      x.on('finish', () => resolve())
      x.on('error', reject)
      x.end(tar)
    })
    expect(entries).toEqual([{ name: 'TOKEN', mode: 0o400, uid: 1000, body: 's3cret' }])
  })
})

describe("a workspace's unsaved work", () => {
  it('is read from git status and the commits main lacks', () => {
    const out = 'head=session/x\nchanges:\n M a.txt\n?? b.txt\ncommits:\nabc123 inside\nend:\n'
    expect(parseStatus(out)).toEqual({ changes: [' M a.txt', '?? b.txt'], unsavedCommits: ['abc123 inside'] })
    expect(parseStatus('head=session/x\nchanges:\ncommits:\nend:\n')).toEqual({ changes: [], unsavedCommits: [] })
  })
})
