// What a gateway client may ask of a session channel: environment values and a pty, checked before
// they reach a process in the session (names, sizes, no NUL, nothing the gateway sets itself).

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/
// set by the gateway itself; a client cannot override them
const RESERVED_ENV = new Set(['SSH_CONNECTION', 'SSH_CLIENT', 'SSH_AUTH_SOCK', 'BERTH_SESSION', 'BERTH_ROUTE'])

export function acceptableEnv(key: unknown, val: unknown): key is string {
  return (
    typeof key === 'string' && ENV_NAME.test(key) && !RESERVED_ENV.has(key) && typeof val === 'string' && val.length <= 8192 && !val.includes('\0')
  )
}

/** A terminal size the gateway passes on: 1 to 10 000, else the fallback. */
export const dim = (n: unknown, fallback: number): number => (typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 10_000 ? n : fallback)

export function ptyOf(info: { term: string; cols: number; rows: number }): { term: string; cols: number; rows: number } {
  return { term: /^[A-Za-z0-9._+-]{1,64}$/.test(info.term) ? info.term : 'xterm', cols: dim(info.cols, 80), rows: dim(info.rows, 24) }
}

/** What sshd sets for a client ("IP PORT" of its end) on the gateway's port. */
export function sshEnv(remote: string, gatewayPort: number): Record<string, string> {
  const [ip, port] = remote.split(' ')
  return {
    SSH_CONNECTION: `${ip} ${port} 127.0.0.1 ${gatewayPort}`,
    SSH_CLIENT: `${ip} ${port} ${gatewayPort}`,
  }
}
