// Secrets: stored on the laptop, installed into sessions after every start, never anywhere else.
import { BerthError } from '../../../shared/errors'
import type { Core } from '../core'
import { FileSecretStore, type SecretStore } from './secret-store'
import { SecretInstaller } from './secret-installer'

export class Secrets {
  readonly installer: SecretInstaller

  constructor(
    readonly store: SecretStore,
    core: Core,
  ) {
    this.installer = new SecretInstaller(store, (row, kind, detail) => core.lifecycle.note(row.id, kind, detail))
  }

  /** Every name must be stored before a session may ask for it. */
  assertKnown(names: string[]): void {
    const stored = new Set(this.store.list().map((s) => s.name))
    const missing = names.filter((n) => !stored.has(n))
    if (missing.length) {
      throw new BerthError('not_found', `secret not found: ${missing[0]}; store it first with: berth secret set ${missing[0]}`)
    }
  }
}

/** The same store for both hosts (secret-store.ts); the desktop app adds a keychain copy of its key. */
export function installSecrets(core: Core, store: SecretStore = new FileSecretStore(core.options.home)): Secrets {
  const secrets = new Secrets(store, core)
  core.sessions.afterStart.push((row, engine, containerId) => secrets.installer.install(row, engine, containerId))
  core.use(
    {},
    {
      'secret.set': (a) => {
        const r = store.set(a.name, Buffer.from(a.valueBase64, 'base64'))
        return { name: a.name, updatedAt: r.updatedAt, created: r.created }
      },
      'secret.list': () => store.list(),
      'secret.remove': (a) => ({ removed: store.remove(a.name) }),
      'secret.info': () => store.protection(),
    },
  )
  return secrets
}
