import { BerthError } from '../../../shared/errors'

export interface SshTarget {
  user: string
  host: string
  port: number
}

export function parseSshUrl(url: string): SshTarget {
  const m = /^ssh:\/\/([^@\s/]+)@([^:\s/]+)(?::(\d{1,5}))?\/?$/.exec(url)
  if (!m) throw new BerthError('usage', `not a server address: ${url} (expected ssh://USER@HOST:PORT)`)
  const port = m[3] ? Number(m[3]) : 22
  if (port < 1 || port > 65535) throw new BerthError('usage', `not a port: ${m[3]}`)
  return { user: m[1]!, host: m[2]!, port }
}
