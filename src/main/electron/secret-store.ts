// In the desktop app, secret values sit encrypted with the OS keychain (Electron's safeStorage).
// Values the headless daemon stored in its plain 0600 file move into the encrypted file the first
// time the app drives the home, and the plain file goes.
import { existsSync, rmSync } from 'node:fs'
import { safeStorage } from 'electron'
import { FileSecretStore, type SecretCodec, type SecretStore } from '../core/secrets/secret-store'

const safeStorageCodec: SecretCodec = {
  encode: (value) => safeStorage.encryptString(value.toString('base64')).toString('base64'),
  decode: (stored) => Buffer.from(safeStorage.decryptString(Buffer.from(stored, 'base64')), 'base64'),
}

export function electronSecretStore(home: string): SecretStore | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined // the daemon's 0600 file, as headless
  const store = new FileSecretStore(home, safeStorageCodec, 'secrets.safe.json')
  const plain = new FileSecretStore(home)
  if (existsSync(plain.file)) {
    for (const { name } of plain.list()) {
      const value = plain.get(name)
      if (value && !store.get(name)) store.set(name, value)
    }
    rmSync(plain.file, { force: true })
  }
  return store
}
