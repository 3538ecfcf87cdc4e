// The secret store's files, the archive that carries secrets into a session, the session's user,
// and the parsing of what a workspace has not saved yet.
import { mkdtempSync, rmSync, statSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { extract } from 'tar-stream'
import { afterEach, describe, expect, it } from 'vitest'
import { FileSecretStore } from '../../src/main/core/secrets/secret-store'
import { secretsArchive } from '../../src/main/core/secrets/secret-installer'
import { parseIdFile, parseUserSpec, resolveSpec } from '../../src/main/core/secrets/container-user'
import { parseStatus } from '../../src/main/core/workspace/workspace-scripts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('the file secret store', () => {
  const home = () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-secrets-'))
    dirs.push(dir)
    return dir
  }

  it('keeps values sealed in a 0600 file under a 0600 key, names only in listings, exact bytes back', () => {
    const store = new FileSecretStore(home())
    const value = Buffer.from([0, 1, 2, 255, 10])
    expect(store.set('B_KEY', value).created).toBe(true)
    expect(store.set('A_TOKEN', Buffer.from('first-value')).created).toBe(true)
    expect(store.set('A_TOKEN', Buffer.from('second-value')).created).toBe(false)
    expect(statSync(store.file).mode & 0o777).toBe(0o600)
    expect(statSync(store.keyFile).mode & 0o777).toBe(0o600)
    expect(store.get('B_KEY')).toEqual(value)
    expect(store.get('A_TOKEN')?.toString()).toBe('second-value')
    expect(store.list().map((s) => s.name)).toEqual(['A_TOKEN', 'B_KEY'])
    const text = readFileSync(store.file, 'utf8')
    for (const v of ['second-value', Buffer.from('second-value').toString('base64'), value.toString('base64')]) expect(text).not.toContain(v)
    expect(store.remove('A_TOKEN')).toBe(true)
    expect(store.remove('A_TOKEN')).toBe(false)
    expect(store.get('A_TOKEN')).toBeUndefined()
  })

  it('is the same store for another process of the home (the app, then a daemon)', () => {
    const dir = home()
    new FileSecretStore(dir).set('TOKEN', Buffer.from('from-the-app'))
    expect(new FileSecretStore(dir).get('TOKEN')?.toString()).toBe('from-the-app')
  })

  it('seals an older, unsealed file the first time it reads it', () => {
    const dir = home()
    const old = { secrets: { OLD: { value: Buffer.from('plain-old').toString('base64'), updatedAt: '2024-01-01T00:00:00.000Z' } } }
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify(old), { mode: 0o600 })
    const store = new FileSecretStore(dir)
    expect(store.list()).toEqual([{ name: 'OLD', updatedAt: '2024-01-01T00:00:00.000Z' }])
    expect(readFileSync(store.file, 'utf8')).not.toContain(Buffer.from('plain-old').toString('base64'))
    expect(store.get('OLD')?.toString()).toBe('plain-old')
  })

  it('says clearly when the key is lost or a value was tampered with, and takes a key back', () => {
    const dir = home()
    const store = new FileSecretStore(dir)
    store.set('TOKEN', Buffer.from('v'))
    const key = store.key()
    // a value moved under another name does not open (the name is bound into the seal)
    const data = JSON.parse(readFileSync(store.file, 'utf8'))
    data.secrets.OTHER = data.secrets.TOKEN
    writeFileSync(store.file, JSON.stringify(data))
    expect(() => new FileSecretStore(dir).get('OTHER')).toThrow(/does not open with the key/)
    rmSync(store.keyFile)
    const lost = new FileSecretStore(dir)
    expect(() => lost.get('TOKEN')).toThrow(/secrets key .* is missing/)
    expect(lost.list().map((s) => s.name)).toEqual(['OTHER', 'TOKEN'])
    expect(lost.restoreKey(key)).toBe(true)
    expect(lost.restoreKey(key)).toBe(false)
    expect(lost.get('TOKEN')?.toString()).toBe('v')
  })

  it('reports what the desktop app found in the keychain, plainly when it is basic_text', () => {
    const store = new FileSecretStore(home())
    expect(store.protection()).toMatchObject({ file: store.file, keyFile: store.keyFile, sealed: 'aes-256-gcm', keychain: null })
    store.recordKeychain({ backend: 'basic_text', sealedKey: null })
    expect(store.protection().keychain).toMatchObject({ backend: 'basic_text', kept: false })
    expect(store.protection().note).toContain('basic_text')
    expect(store.protection().note).toContain('protects nothing')
    store.recordKeychain({ backend: 'gnome_libsecret', sealedKey: 'c2VhbGVk' })
    expect(store.protection().keychain).toMatchObject({ backend: 'gnome_libsecret', kept: true })
  })

  it('keeps a newer value over an older one an app adopts', () => {
    const store = new FileSecretStore(home())
    store.set('T', Buffer.from('new'))
    expect(store.adopt('T', Buffer.from('old'), '2020-01-01T00:00:00.000Z')).toBe(false)
    expect(store.adopt('U', Buffer.from('only'), '2020-01-01T00:00:00.000Z')).toBe(true)
    expect(store.get('T')?.toString()).toBe('new')
    expect(store.get('U')?.toString()).toBe('only')
  })
})

describe('the secrets archive', () => {
  it("gives the folder and each file to the session's user, readable by it only", async () => {
    const tar = await secretsArchive([{ name: 'TOKEN', value: Buffer.from('s3cret') }], { uid: 1000, gid: 1001 })
    const entries: Array<{ name: string; type?: string | null; mode?: number; uid?: number; gid?: number; body: string }> = []
    await new Promise<void>((resolve, reject) => {
      const x = extract()
      x.on('entry', (h, stream, next) => {
        const chunks: Buffer[] = []
        stream.on('data', (c: unknown) => chunks.push(c as Buffer))
        stream.on('end', () => {
          entries.push({ name: h.name, type: h.type, mode: h.mode, uid: h.uid, gid: h.gid, body: Buffer.concat(chunks).toString() })
          next()
        })
      })
      x.on('finish', () => resolve())
      x.on('error', reject)
      x.end(tar)
    })
    expect(entries).toEqual([
      { name: 'secrets/', type: 'directory', mode: 0o500, uid: 1000, gid: 1001, body: '' },
      { name: 'secrets/TOKEN', type: 'file', mode: 0o400, uid: 1000, gid: 1001, body: 's3cret' },
    ])
  })
})

describe("the session's user, as runc reads USER", () => {
  const passwd = parseIdFile(['root:x:0:0:root:/root:/bin/bash', 'app:x:1000:1000::/home/app:/bin/sh', 'svc:x:1001:50::/:/bin/false', 'evil:x:-1:0::/:', 'huge:x:99999999999:0::/:', 'bad name:x:5:5::/:', 'short:x'].join('\n'), 'passwd')
  const group = parseIdFile('root:x:0:\nstaff:x:50:\n', 'group')
  const owner = (spec: string) => {
    const s = parseUserSpec(spec)
    return s && resolveSpec(s, passwd, group)
  }

  it('resolves names through passwd and group, numbers as they are', () => {
    expect(passwd.map((e) => e.name)).toEqual(['root', 'app', 'svc'])
    expect(owner('app')).toEqual({ uid: 1000, gid: 1000 })
    expect(owner('svc')).toEqual({ uid: 1001, gid: 50 })
    expect(owner('app:staff')).toEqual({ uid: 1000, gid: 50 })
    expect(owner('1000')).toEqual({ uid: 1000, gid: 1000 })
    expect(owner('4242')).toEqual({ uid: 4242, gid: 0 })
    expect(owner('4242:7')).toEqual({ uid: 4242, gid: 7 })
  })

  it('refuses what it cannot tell: unknown names, odd text, ids a tar header cannot carry', () => {
    expect(owner('nobody-here')).toBeUndefined()
    expect(owner('app:nogroup')).toBeUndefined()
    for (const spec of ['app:staff:x', '$(id)', '../../etc', 'a b', '-1', '99999999999', 'app\u001b[31m', '']) expect(parseUserSpec(spec), spec).toBeUndefined()
  })
})

describe("a workspace's unsaved work", () => {
  it('is read from git status and the commits main lacks', () => {
    const out = 'head=session/x\nchanges:\n M a.txt\n?? b.txt\ncommits:\nabc123 inside\nend:\n'
    expect(parseStatus(out)).toEqual({ changes: [' M a.txt', '?? b.txt'], unsavedCommits: ['abc123 inside'] })
    expect(parseStatus('head=session/x\nchanges:\ncommits:\nend:\n')).toEqual({ changes: [], unsavedCommits: [] })
  })
})
