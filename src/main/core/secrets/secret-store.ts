// Where secret values live on the laptop: one store that both hosts (the desktop app and
// `berth daemon`) read and write, so a daemon started after the app installs the same secrets.
// secrets.json holds each value sealed with AES-256-GCM under the home's key, secrets.key (both
// 0600 in the 0700 home, written durably). A daemon has no OS keychain, so the key cannot live only
// there: the desktop app keeps a copy of it in the keychain (electron/secret-store.ts), recorded in
// secrets.keychain.json, to bring the key back if its file is lost.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SecretProtection } from '../../../shared/contract/secrets'
import { BerthError } from '../../../shared/errors'
import { createFileDurably, ensurePrivateFile, writeFileDurably } from '../durable-file'

export interface SecretStore {
  set(name: string, value: Buffer): { created: boolean; updatedAt: string }
  get(name: string): Buffer | undefined
  list(): Array<{ name: string; updatedAt: string }>
  remove(name: string): boolean
  /** where the values sit and what protects them */
  protection(): SecretProtection
}

interface FileShape {
  version: 2
  secrets: Record<string, { value: string; updatedAt: string }>
}

/** The format before version 2: values in base64, unsealed. Read once, then written sealed. */
interface LegacyShape {
  version?: 1
  secrets: Record<string, { value: string; updatedAt: string }>
}

/** What the desktop app last found in the OS keychain (written by the app only). */
export interface KeychainRecord {
  version: 1
  /** safeStorage's backend: gnome_libsecret, kwallet*, basic_text (a hard-coded key), keychain (macOS), dpapi (Windows), unavailable */
  backend: string
  /** the home's key sealed by safeStorage, base64; null when no copy is kept */
  sealedKey: string | null
  at: string
}

const KEY_BYTES = 32
const aad = (name: string) => Buffer.from(`berth-secret:${name}`)

export function sealValue(key: Buffer, name: string, value: Buffer): string {
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', key, iv)
  c.setAAD(aad(name))
  const body = Buffer.concat([c.update(value), c.final()])
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64')
}

export function openValue(key: Buffer, name: string, sealed: string): Buffer | undefined {
  const raw = Buffer.from(sealed, 'base64')
  if (raw.length < 28) return undefined
  try {
    const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
    d.setAAD(aad(name))
    d.setAuthTag(raw.subarray(12, 28))
    return Buffer.concat([d.update(raw.subarray(28)), d.final()])
  } catch {
    return undefined
  }
}

export class FileSecretStore implements SecretStore {
  readonly file: string
  readonly keyFile: string
  readonly keychainFile: string
  private cachedKey: Buffer | undefined

  constructor(readonly home: string) {
    this.file = join(home, 'secrets.json')
    this.keyFile = join(home, 'secrets.key')
    this.keychainFile = join(home, 'secrets.keychain.json')
  }

  private readShape(): FileShape | LegacyShape {
    if (!existsSync(this.file)) return { version: 2, secrets: {} }
    let parsed: FileShape | LegacyShape
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8')) as FileShape | LegacyShape
    } catch {
      throw new BerthError('damaged', `the secrets file ${this.file} is unreadable; fix or remove it`)
    }
    if (!parsed || typeof parsed.secrets !== 'object' || parsed.secrets === null) {
      throw new BerthError('damaged', `the secrets file ${this.file} is not Berth's; fix or remove it`)
    }
    return parsed
  }

  private read(): FileShape {
    const shape = this.readShape()
    if (shape.version === 2) return shape
    // an older Berth kept the values unsealed: seal them now, so no plain copy lingers
    const key = this.key()
    const sealed: FileShape = { version: 2, secrets: {} }
    for (const [name, e] of Object.entries(shape.secrets)) {
      sealed.secrets[name] = { value: sealValue(key, name, Buffer.from(e.value, 'base64')), updatedAt: e.updatedAt }
    }
    this.write(sealed)
    return sealed
  }

  private write(data: FileShape): void {
    writeFileDurably(this.file, JSON.stringify(data))
  }

  /** The home's key: read from secrets.key, made on first use. */
  key(): Buffer {
    if (this.cachedKey) return this.cachedKey
    if (!existsSync(this.keyFile)) {
      const stored = existsSync(this.file) ? this.readShape() : undefined
      if (stored?.version === 2 && Object.keys(stored.secrets).length > 0) {
        throw new BerthError(
          'damaged',
          `the secrets key ${this.keyFile} is missing, so the secrets in ${this.file} cannot be opened; restore it from a backup (or open the desktop app, which keeps a copy in the OS keychain), or remove ${this.file} and store the secrets again`,
        )
      }
      createFileDurably(this.keyFile, randomBytes(KEY_BYTES).toString('base64') + '\n')
    }
    ensurePrivateFile(this.keyFile)
    const key = Buffer.from(readFileSync(this.keyFile, 'utf8').trim(), 'base64')
    if (key.length !== KEY_BYTES) throw new BerthError('damaged', `the secrets key ${this.keyFile} is damaged (not ${KEY_BYTES} bytes of base64)`)
    this.cachedKey = key
    return key
  }

  /** Puts back a lost key file (the desktop app, from its keychain copy). False if one is there. */
  restoreKey(key: Buffer): boolean {
    if (key.length !== KEY_BYTES) throw new BerthError('internal', 'not a secrets key')
    this.cachedKey = undefined
    return createFileDurably(this.keyFile, key.toString('base64') + '\n')
  }

  set(name: string, value: Buffer): { created: boolean; updatedAt: string } {
    const data = this.read()
    const created = !data.secrets[name]
    const updatedAt = new Date().toISOString()
    data.secrets[name] = { value: sealValue(this.key(), name, value), updatedAt }
    this.write(data)
    return { created, updatedAt }
  }

  get(name: string): Buffer | undefined {
    const entry = this.read().secrets[name]
    if (!entry) return undefined
    const value = openValue(this.key(), name, entry.value)
    if (!value) throw new BerthError('damaged', `the secret ${name} in ${this.file} does not open with the key in ${this.keyFile} (damaged, or from another home); store it again`)
    return value
  }

  /** Takes a value kept elsewhere (an older app's keychain-sealed file) unless a newer one is stored. */
  adopt(name: string, value: Buffer, updatedAt: string): boolean {
    const data = this.read()
    const cur = data.secrets[name]
    if (cur && Date.parse(cur.updatedAt) >= Date.parse(updatedAt)) return false
    data.secrets[name] = { value: sealValue(this.key(), name, value), updatedAt }
    this.write(data)
    return true
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

  keychain(): KeychainRecord | undefined {
    try {
      const r = JSON.parse(readFileSync(this.keychainFile, 'utf8')) as KeychainRecord
      return r && r.version === 1 && typeof r.backend === 'string' ? r : undefined
    } catch {
      return undefined
    }
  }

  recordKeychain(record: Omit<KeychainRecord, 'version' | 'at'>): void {
    writeFileDurably(this.keychainFile, JSON.stringify({ version: 1, ...record, at: new Date().toISOString() }))
  }

  protection(): SecretProtection {
    const k = this.keychain()
    let note: string
    if (!k) note = 'no copy of the key in an OS keychain: the desktop app keeps one when it runs (a headless daemon has no keychain)'
    else if (k.backend === 'basic_text') {
      note =
        "the desktop app found no OS keychain: Electron's safeStorage fell back to its basic_text backend, a key built into Electron, which protects nothing; no copy of the key is kept, and the key file alone guards the values (install and unlock a Secret Service keyring such as GNOME Keyring or KWallet, then open the app again)"
    } else if (!k.sealedKey) note = `the desktop app could not use the OS keychain (${k.backend}): no copy of the key is kept`
    else note = `the desktop app keeps a copy of the key in the OS keychain (${k.backend}), to bring the key file back if it is lost`
    return {
      file: this.file,
      keyFile: this.keyFile,
      sealed: 'aes-256-gcm',
      keychain: k ? { backend: k.backend, kept: !!k.sealedKey, at: k.at } : null,
      note,
    }
  }
}
