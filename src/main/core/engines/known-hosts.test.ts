import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hostKeyOf, KnownHosts } from './known-hosts'

describe("Berth's known hosts", () => {
  it('computes the same fingerprint as ssh-keygen and keeps one key per host and port', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-kh-'))
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k')])
      const [type, b64] = readFileSync(join(dir, 'k.pub'), 'utf8').split(' ') as [string, string]
      const expected = execFileSync('ssh-keygen', ['-lf', join(dir, 'k.pub')], { encoding: 'utf8' }).split(' ')[1]
      const key = hostKeyOf(Buffer.from(b64, 'base64'))
      expect(key).toEqual({ keyType: type, key: b64, fingerprint: expected })

      const kh = new KnownHosts(dir)
      kh.add('10.0.0.1', 2222, key)
      kh.add('10.0.0.1', 22, key)
      kh.add('10.0.0.1', 2222, key)
      expect(readFileSync(join(dir, 'known_hosts'), 'utf8').trim().split('\n')).toEqual([`10.0.0.1 ${type} ${b64}`, `[10.0.0.1]:2222 ${type} ${b64}`])
      expect(kh.lookup('10.0.0.1', 2222)?.fingerprint).toBe(expected)
      expect(kh.lookup('10.0.0.2', 2222)).toBeUndefined()
      kh.remove('10.0.0.1', 2222)
      expect(kh.lookup('10.0.0.1', 2222)).toBeUndefined()
      expect(kh.lookup('10.0.0.1', 22)).toBeDefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
