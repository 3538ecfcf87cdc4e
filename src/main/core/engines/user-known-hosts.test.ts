import { createHmac, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fingerprintOf } from './known-hosts'
import { userTrust } from './user-known-hosts'

const blob = (type: string, seed: string) => {
  const t = Buffer.from(type)
  const k = Buffer.from(seed.padEnd(32, '.'))
  const len = (b: Buffer) => Buffer.from([0, 0, 0, b.length])
  return Buffer.concat([len(t), t, len(k), k])
}
const office = blob('ssh-ed25519', 'office')
const other = blob('ssh-ed25519', 'other')
const hashed = (name: string) => {
  const salt = randomBytes(20)
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`
}
const home = mkdtempSync(join(tmpdir(), 'known-'))
const file = join(home, 'known_hosts')
afterAll(() => rmSync(home, { recursive: true, force: true }))
const presented = (b: Buffer) => ({ keyType: 'ssh-ed25519', fingerprint: fingerprintOf(b) })

describe("the host keys the user's ssh already trusts", () => {
  it('finds hashed entries for a host on another port, and names where', () => {
    writeFileSync(file, `# mine\n${hashed('[127.0.0.2]:2222')} ssh-ed25519 ${office.toString('base64')}\n`)
    expect(userTrust('127.0.0.2', 2222, presented(office), [file], home)).toMatchObject({ verdict: 'trusted', key: { where: '~/known_hosts line 2 (hashed)' } })
    expect(userTrust('127.0.0.2', 22, presented(office), [file], home)).toEqual({ verdict: 'unknown' })
  })

  it('reads plain patterns with wildcards and negations, and tells a changed key and a revoked one', () => {
    writeFileSync(
      file,
      [`*.corp,!evil.corp ssh-ed25519 ${office.toString('base64')}`, `@revoked leaked.example ssh-ed25519 ${other.toString('base64')}`, `@cert-authority *.corp ssh-ed25519 ${other.toString('base64')}`].join('\n'),
    )
    expect(userTrust('build.corp', 22, presented(office), [file], home).verdict).toBe('trusted')
    expect(userTrust('evil.corp', 22, presented(office), [file], home).verdict).toBe('unknown')
    expect(userTrust('build.corp', 22, presented(other), [file], home)).toMatchObject({ verdict: 'changed', key: { fingerprint: fingerprintOf(office) } })
    expect(userTrust('leaked.example', 22, presented(other), [file], home).verdict).toBe('revoked')
  })
})
