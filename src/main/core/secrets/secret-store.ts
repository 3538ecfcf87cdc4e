// Where secret values live on the laptop. The daemon keeps them in a file of mode 0600 in
// BERTH_HOME; the Electron host passes a store backed by safeStorage (the OS keychain) instead.
import { existsSync, readFileSync, renameSync, writeFileSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { BerthError } from '../../../shared/errors'

export interface SecretStore {
  set(name: string, value: Buffer): { created: boolean; updatedAt: string }
  get(name: string): Buffer | undefined
  list(): Array<{ name: string; updatedAt: string }>
  remove(name: string): boolean
}

/** Turns stored bytes into something safe at rest and back (safeStorage in Electron; identity here). */
export interface SecretCodec {
  encode(value: Buffer): string
  decode(stored: string): Buffer
}

const base64Codec: SecretCodec = {
  encode: (v) => v.toString('base64'),
  decode: (s) => Buffer.from(s, 'base64'),
}

interface FileShape {
  version: 1
  secrets: Record<string, { value: string; updatedAt: string }>
}

/** One JSON file, mode 0600, written atomically; the codec decides how values sit in it. */
export class FileSecretStore implements SecretStore {
  readonly file: string

  constructor(
    home: string,
    private readonly codec: SecretCodec = base64Codec,
    fileName = 'secrets.json',
  ) {
    this.file = join(home, fileName)
  }

  private read(): FileShape {
    if (!existsSync(this.file)) return { version: 1, secrets: {} }
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as FileShape
      return parsed && typeof parsed.secrets === 'object' ? parsed : { version: 1, secrets: {} }
    } catch {
      throw new BerthError('internal', `the secrets file ${this.file} is unreadable; fix or remove it`)
    }
  }

  private write(data: FileShape): void {
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 })
    chmodSync(tmp, 0o600)
    renameSync(tmp, this.file)
  }

  set(name: string, value: Buffer): { created: boolean; updatedAt: string } {
    const data = this.read()
    const created = !data.secrets[name]
    const updatedAt = new Date().toISOString()
    data.secrets[name] = { value: this.codec.encode(value), updatedAt }
    this.write(data)
    return { created, updatedAt }
  }

  get(name: string): Buffer | undefined {
    const entry = this.read().secrets[name]
    return entry ? this.codec.decode(entry.value) : undefined
  }

  list(): Array<{ name: string; updatedAt: string }> {
    return Object.entries(this.read().secrets)
      .map(([name, e]) => ({ name, updatedAt: e.updatedAt }))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  remove(name: string): boolean {
    const data = this.read()
    if (!data.secrets[name]) return false
    delete data.secrets[name]
    this.write(data)
    return true
  }
}
