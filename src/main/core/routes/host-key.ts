// The gateway's host key: generated once per BERTH_HOME and kept (0600), so a client that trusted it
// never sees a changed host key after a restart of Berth, a reboot or an upgrade.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { utils, type ParsedKey } from 'ssh2'
import { ensurePrivateDir, ensurePrivateFile, writeFileDurably } from '../durable-file'
import { fingerprintOf } from '../engines/known-hosts'

export interface GatewayHostKey {
  /** OpenSSH private key text, as ssh2's Server takes it */
  privateKey: string
  /** "ssh-ed25519 AAAA..." */
  publicKey: string
  fingerprint: string
}

/** $BERTH_HOME/ssh: the gateway's key, the pinned known_hosts entry and the generated ssh config. */
export function routesDir(home: string): string {
  return ensurePrivateDir(join(home, 'ssh'))
}

/**
 * An ed25519 pair that ssh2 can read back: its generator drops a public key's leading zero byte
 * (mscdex/ssh2#1513, about one key in 256), and such a key is refused by its own parser.
 */
export function generateEd25519(comment?: string): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519', comment ? { comment } : {})
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair
  }
}

/** The key in `file` as ssh2 reads it, or null when there is none it can read. */
function readKey(file: string): { privateKey: string; key: ParsedKey } | null {
  if (!existsSync(file)) return null
  const privateKey = readFileSync(file, 'utf8')
  const parsed = utils.parseKey(privateKey)
  const key = Array.isArray(parsed) ? parsed[0] : parsed
  return key && !(key instanceof Error) ? { privateKey, key } : null
}

export function loadOrCreateHostKey(home: string): GatewayHostKey {
  const file = join(routesDir(home), 'gateway_host_ed25519_key')
  // a key ssh2 cannot read never served a client, so no client trusts it: replacing it changes nothing for anyone
  let loaded = readKey(file)
  if (!loaded) {
    const pair = generateEd25519('berth-gateway')
    writeFileDurably(`${file}.pub`, pair.public + '\n')
    writeFileDurably(file, pair.private)
    loaded = readKey(file)
    if (!loaded) throw new Error(`the gateway host key ${file} could not be written`)
  }
  // a key someone else could read is a key someone else could impersonate the gateway with
  ensurePrivateFile(file)
  ensurePrivateFile(`${file}.pub`)
  const blob = loaded.key.getPublicSSH()
  return { privateKey: loaded.privateKey, publicKey: `${loaded.key.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) }
}
