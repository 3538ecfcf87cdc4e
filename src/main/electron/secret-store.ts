// The desktop app reads and writes the same secret store as `berth daemon` (core/secrets/
// secret-store.ts): a daemon has no OS keychain, so the values cannot be sealed by one alone. What
// the app adds is a copy of the store's key sealed by the OS keychain (Electron's safeStorage), to
// bring the key file back if it is lost, and the truth about that keychain: on Linux safeStorage may
// fall back to its basic_text backend, a key built into Electron, and then no copy is kept and
// `berth secret info` says so. Values an older app sealed with safeStorage (secrets.safe.json)
// move into the shared store here, once.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { safeStorage } from 'electron'
import type { FileSecretStore } from '../core/secrets/secret-store'

type Log = (message: string) => void

/** safeStorage's backend, named as `berth secret info` reports it. */
async function keychainBackend(): Promise<string> {
  if (!(await safeStorage.isAsyncEncryptionAvailable())) return 'unavailable'
  if (process.platform === 'linux') return safeStorage.getSelectedStorageBackend()
  return process.platform === 'darwin' ? 'keychain' : process.platform === 'win32' ? 'dpapi' : process.platform
}

const unseal = async (sealed: string): Promise<string> => (await safeStorage.decryptStringAsync(Buffer.from(sealed, 'base64'))).result

/** Whether the keychain's copy opens to `key` and needs no re-sealing (the keychain rotated its own key). */
async function copyIsCurrent(sealed: string, key: string): Promise<boolean> {
  try {
    const r = await safeStorage.decryptStringAsync(Buffer.from(sealed, 'base64'))
    return r.result === key && !r.shouldReEncrypt
  } catch {
    return false
  }
}

/** Moves the values an older app kept sealed by safeStorage into the shared store (newer ones win). */
async function adoptLegacyValues(store: FileSecretStore, log: Log): Promise<void> {
  const file = join(store.home, 'secrets.safe.json')
  if (!existsSync(file)) return
  let legacy: { secrets?: Record<string, { value: string; updatedAt: string }> }
  try {
    legacy = JSON.parse(readFileSync(file, 'utf8')) as typeof legacy
  } catch {
    log(`secrets: ${file} is unreadable; left as it is`)
    return
  }
  for (const [name, e] of Object.entries(legacy.secrets ?? {})) {
    try {
      store.adopt(name, Buffer.from(await unseal(e.value), 'base64'), e.updatedAt)
    } catch (err) {
      log(`secrets: could not move ${name} out of ${file} (${(err as Error).message}); left as it is`)
      return
    }
  }
  rmSync(file, { force: true })
}

/**
 * Run once the app drives the home (after the takeover, before the modules): the key file is
 * restored from the keychain copy if it is lost, and the copy is (re)made where the keychain is real.
 */
export async function keepSecretsKeyInKeychain(store: FileSecretStore, log: Log): Promise<void> {
  const backend = await keychainBackend()
  const recorded = store.keychain()
  if (backend === 'unavailable') {
    // a keychain locked this once keeps the copy it holds
    if (!recorded?.sealedKey) store.recordKeychain({ backend, sealedKey: null })
    log('secrets: no OS keychain is available now: secret values are guarded by their key file alone')
    return
  }
  if (!existsSync(store.keyFile) && recorded?.sealedKey) {
    try {
      if (store.restoreKey(Buffer.from(await unseal(recorded.sealedKey), 'base64'))) log(`secrets: restored the lost key ${store.keyFile} from the OS keychain`)
    } catch (e) {
      log(`secrets: the keychain's copy of the key does not open (${(e as Error).message})`)
    }
  }
  await adoptLegacyValues(store, log)
  if (backend === 'basic_text') {
    // a copy sealed by a key built into Electron protects nothing: keep none, and say so
    store.recordKeychain({ backend, sealedKey: null })
    log("secrets: Electron's safeStorage uses its basic_text backend here (no OS keychain): secret values are guarded by their key file alone")
    return
  }
  const key = store.key().toString('base64')
  if (recorded?.backend === backend && recorded.sealedKey && (await copyIsCurrent(recorded.sealedKey, key))) return
  store.recordKeychain({ backend, sealedKey: (await safeStorage.encryptStringAsync(key)).toString('base64') })
}
