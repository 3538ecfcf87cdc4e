// The key of a session's preview addresses: 26 characters of base32 (130 bits from the OS's
// randomness), made the first time the session's previews are shown and kept in the store for the
// session's whole life, so a bookmarked address works after a pause, a restart, a move or a new
// Berth. Checking a key costs the same whether the route exists or not.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import type { Db } from '../store/database'
import { nowIso } from '../store/database'
import { prepared } from '../store/prepared'

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'
export const SECRET_LENGTH = 26
export const SECRET_PATTERN = `[a-z2-7]{${SECRET_LENGTH}}`

export function newPreviewSecret(): string {
  let s = ''
  for (let i = 0; i < SECRET_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)]
  return s
}

const digest = (s: string) => createHash('sha256').update(s).digest()
/** what an unknown route is compared with, so that a miss does the same work as a hit */
const NOBODY = digest(newPreviewSecret())

export class PreviewSecrets {
  private readonly known = new Map<string, string>()

  constructor(private readonly db: Db) {}

  /** The session's key, made now if it has none yet. */
  of(session: { id: string; route: string }): string {
    const cached = this.known.get(session.id)
    if (cached) return cached
    const read = () => (prepared(this.db, 'SELECT secret FROM preview_secrets WHERE session_id = ?').get(session.id) as { secret: string } | undefined)?.secret
    let secret = read()
    if (!secret) {
      prepared(this.db, 'INSERT OR IGNORE INTO preview_secrets(session_id, route, secret, created_at) VALUES (?, ?, ?, ?)').run(session.id, session.route, newPreviewSecret(), nowIso())
      secret = read()!
    }
    this.known.set(session.id, secret)
    return secret
  }

  /** The session whose route and key these are, or undefined; in constant time over the key. */
  verify(route: string, secret: string): string | undefined {
    const row = prepared(this.db, 'SELECT session_id, secret FROM preview_secrets WHERE route = ?').get(route) as { session_id: string; secret: string } | undefined
    const same = timingSafeEqual(row ? digest(row.secret) : NOBODY, digest(secret))
    return same && row ? row.session_id : undefined
  }
}
