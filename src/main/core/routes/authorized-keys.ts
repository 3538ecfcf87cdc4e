// Who may use the gateway: the public keys of the user running Berth (~/.ssh/*.pub) and the
// authorizedKeys setting. Read on every attempt, so a key added a minute ago works at once.
import { timingSafeEqual } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { utils, type ParsedKey } from 'ssh2'

export interface AllowedKey {
  key: ParsedKey
  blob: Buffer
  /** where it came from: a file path or "setting" */
  source: string
}

/** The public key text of one line: options in front (authorized_keys style) are skipped. */
function keyText(line: string): string | undefined {
  const t = line.trim()
  if (!t || t.startsWith('#')) return undefined
  const m = /(?:^|\s)((?:ssh-|ecdsa-|sk-)[^\s]+\s+[A-Za-z0-9+/=]+)/.exec(t)
  return m?.[1]
}

export function parsePublicKey(line: string): ParsedKey | undefined {
  const text = keyText(line)
  if (!text) return undefined
  const parsed = utils.parseKey(text)
  const key = Array.isArray(parsed) ? parsed[0] : parsed
  if (!key || key instanceof Error) return undefined
  // certificates would need a CA check this gateway does not do
  if (key.type.includes('-cert-')) return undefined
  return key
}

export class AuthorizedKeys {
  constructor(
    private readonly fromSetting: () => readonly string[],
    private readonly sshDir: () => string = () => join(homedir(), '.ssh'),
  ) {}

  /** ~/.ssh/*.pub files, sorted by name. */
  publicKeyFiles(): string[] {
    const dir = this.sshDir()
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith('.pub'))
        .sort()
        .map((f) => join(dir, f))
    } catch {
      return []
    }
  }

  list(): AllowedKey[] {
    const out: AllowedKey[] = []
    for (const file of this.publicKeyFiles()) {
      let text: string
      try {
        text = readFileSync(file, 'utf8')
      } catch {
        continue
      }
      for (const line of text.split('\n')) {
        const key = parsePublicKey(line)
        if (key) out.push({ key, blob: key.getPublicSSH(), source: file })
      }
    }
    for (const line of this.fromSetting()) {
      const key = parsePublicKey(line)
      if (key) out.push({ key, blob: key.getPublicSSH(), source: 'setting' })
    }
    return out
  }

  /** The allowed key with this public blob, if any. */
  find(blob: Buffer): AllowedKey | undefined {
    return this.list().find((k) => k.blob.length === blob.length && timingSafeEqual(k.blob, blob))
  }

  /** Identity files for the ssh config: the private keys next to ~/.ssh/*.pub (or the .pub, for agent-held keys). */
  identityFiles(): string[] {
    return this.publicKeyFiles()
      .filter((pub) => parsePublicKey(readFileSync(pub, 'utf8').split('\n')[0] ?? ''))
      .map((pub) => {
        const priv = pub.slice(0, -'.pub'.length)
        return existsSync(priv) ? priv : pub
      })
  }
}

/** Verifies a publickey request's signature over the session blob. */
export function signatureValid(key: ParsedKey, blob: Buffer, signature: Buffer, hashAlgo: string | undefined): boolean {
  try {
    return key.verify(blob, signature, hashAlgo) === true
  } catch {
    return false
  }
}
