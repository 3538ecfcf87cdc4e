// Errors as the user reads them: one sentence from the core, and the action that fixes it.
import type { ErrorCode } from '../../../shared/errors'
import { CallError } from './client'

export interface FixAction {
  label: string
  /** a screen to open (hash route) */
  route?: string
  /** or a retry */
  retry?: boolean
}

export interface Problem {
  message: string
  code: ErrorCode | 'client'
  action?: FixAction
}

const sentence = (s: string) => {
  const t = s.trim().replace(/\s+/g, ' ')
  if (!t) return 'Something went wrong.'
  const first = t.charAt(0).toUpperCase() + t.slice(1)
  return /[.!?]$/.test(first) ? first : `${first}.`
}

export function describeError(e: unknown): Problem {
  if (!(e instanceof CallError)) {
    return { code: 'client', message: sentence(e instanceof Error ? e.message : String(e)), action: { label: 'Try again', retry: true } }
  }
  const message = sentence(e.message)
  switch (e.code) {
    case 'unreachable':
      return { code: e.code, message, action: { label: 'Check the server', route: '#/servers' } }
    case 'host_key_mismatch':
      return { code: e.code, message, action: { label: 'Review the server', route: '#/servers' } }
    case 'host_key_unconfirmed':
      return { code: e.code, message, action: { label: 'Confirm the fingerprint', route: '#/servers' } }
    case 'conflict':
      return { code: e.code, message, action: { label: 'Try again', retry: true } }
    case 'busy':
      return { code: e.code, message, action: { label: 'Try again', retry: true } }
    case 'not_found':
      return { code: e.code, message, action: { label: 'Back to sessions', route: '#/sessions' } }
    case 'usage':
      return { code: e.code, message }
    case 'refused':
      return { code: e.code, message }
    default:
      return { code: e.code, message, action: { label: 'Try again', retry: true } }
  }
}
