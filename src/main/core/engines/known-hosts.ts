// Berth's own known-hosts store ($BERTH_HOME/known_hosts, OpenSSH's format so a person can read it
// and `ssh -o UserKnownHostsFile=` can use it). Written durably: a torn file would make every
// server look unknown.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileDurably } from '../durable-file'

export interface HostKey {
  keyType: string
  /** base64 of the key blob, as in known_hosts */
  key: string
  fingerprint: string
}

/** "SHA256:<base64 without padding>", as `ssh-keygen -l` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')
}

/** The key type is the first string of an ssh public key blob. */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown'
  const len = blob.readUInt32BE(0)
  return blob.subarray(4, 4 + len).toString('ascii')
}

export function hostKeyOf(blob: Buffer): HostKey {
  return { keyType: keyTypeOf(blob), key: blob.toString('base64'), fingerprint: fingerprintOf(blob) }
}

const hostPattern = (host: string, port: number) => (port === 22 ? host : `[${host}]:${port}`)

export class KnownHosts {
  private readonly file: string

  constructor(home: string) {
    this.file = join(home, 'known_hosts')
  }

  private lines(): string[] {
    if (!existsSync(this.file)) return []
    return readFileSync(this.file, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'))
  }

  lookup(host: string, port: number): HostKey | undefined {
    const pattern = hostPattern(host, port)
    for (const line of this.lines()) {
      const [hosts, keyType, key] = line.split(/\s+/)
      if (!hosts || !keyType || !key) continue
      if (hosts.split(',').includes(pattern)) {
        return { keyType, key, fingerprint: fingerprintOf(Buffer.from(key, 'base64')) }
      }
    }
    return undefined
  }

  add(host: string, port: number, hostKey: HostKey): void {
    const pattern = hostPattern(host, port)
    const kept = this.lines().filter((l) => !l.split(/\s+/)[0]!.split(',').includes(pattern))
    kept.push(`${pattern} ${hostKey.keyType} ${hostKey.key}`)
    this.write(kept)
  }

  remove(host: string, port: number): void {
    const pattern = hostPattern(host, port)
    this.write(this.lines().filter((l) => !l.split(/\s+/)[0]!.split(',').includes(pattern)))
  }

  private write(lines: string[]): void {
    writeFileDurably(this.file, lines.map((l) => l + '\n').join(''))
  }
}
