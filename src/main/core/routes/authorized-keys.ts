// Who may use the gateway: the public keys of the user running Berth (~/.ssh/*.pub) and the
// authorizedKeys setting. Read on every attempt, so a key added a minute ago works at once. A line
// is a key alone: authorized_keys options (from=, command=, restrict) would promise limits the
// gateway does not enforce, so the setting refuses them (checkAuthorizedKeys) rather than
// ignoring them, and a .pub line with anything in front of its key is not a key.
import { timingSafeEqual } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { utils, type ParsedKey } from 'ssh2'
import { PUBLIC_KEY_LINE } from '../../../shared/settings/routes'

export interface AllowedKey {
  key: ParsedKey
  blob: Buffer
  /** where it came from: a file path or "setting" */
  source: string
}

/** "TYPE BASE64" of a line that is a key alone (a comment may follow); undefined for anything else. */
function keyText(line: string): string | undefined {
  const t = line.trim()
  if (!t || t.startsWith('#') || !PUBLIC_KEY_LINE.test(t)) return undefined
  const [type, blob] = t.split(/\s+/)
  return `${type} ${blob}`
}

export function parsePublicKey(line: string): ParsedKey | undefined {
  const text = keyText(line)
  if (!text) return undefined
  const parsed = utils.parseKey(text)
  const key = Array.isArray(parsed) ? parsed[0] : parsed
  if (!key || key instanceof Error) return undefined
  // the blob must say the type the line says (a key of another type under an ed25519 label is not one)
  if (key.type !== text.split(' ')[0]) return undefined
  return key
}

/** Why the authorizedKeys setting cannot be taken as given (a key ssh2 cannot read), or undefined. */
export function checkAuthorizedKeys(lines: readonly string[]): string | undefined {
  for (const [i, line] of lines.entries()) {
    if (!parsePublicKey(line)) {
      const shown = line.trim().split(/\s+/).slice(0, 2).join(' ').slice(0, 60)
      return `authorizedKeys[${i}] (${shown}...) is not a public key the gateway can read: copy the whole line of the key's .pub file`
    }
  }
  return undefined
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
