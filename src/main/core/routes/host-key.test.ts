import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { utils } from 'ssh2'
import { afterEach, describe, expect, it } from 'vitest'
import { generateEd25519, loadOrCreateHostKey } from './host-key'

describe("the gateway's host key", () => {
  const homes: string[] = []
  const home = () => {
    const h = mkdtempSync(join(tmpdir(), 'berth-hostkey-'))
    homes.push(h)
    return h
  }
  afterEach(() => homes.splice(0).forEach((h) => rmSync(h, { recursive: true, force: true })))

  it('is always a key ssh2 reads back (its generator drops a leading zero byte one time in 256)', () => {
    for (let i = 0; i < 1500; i++) {
      const pair = generateEd25519()
      expect(utils.parseKey(pair.private)).not.toBeInstanceOf(Error)
      expect(utils.parseKey(pair.public)).not.toBeInstanceOf(Error)
    }
    // 1,500 key pairs: a second or two alone, far more on a loaded 2-core machine
  }, 60_000)

  it('is kept across loads, and a file that never parsed is replaced', () => {
    const h = home()
    const first = loadOrCreateHostKey(h)
    expect(loadOrCreateHostKey(h).fingerprint).toBe(first.fingerprint)
    const file = join(h, 'ssh', 'gateway_host_ed25519_key')
    writeFileSync(file, '-----BEGIN OPENSSH PRIVATE KEY-----\nbroken\n-----END OPENSSH PRIVATE KEY-----\n')
    const replaced = loadOrCreateHostKey(h)
    expect(replaced.fingerprint).not.toBe(first.fingerprint)
    expect(readFileSync(file, 'utf8')).toBe(replaced.privateKey)
  })
})
