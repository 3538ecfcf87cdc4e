// A dockerode client over a unix socket with HTTP keep-alive, whose failed connections become one
// clear "server X is unreachable" error, and whose idempotent reads retry once on a fresh connection
// (a kept-alive socket can die with the ssh connection under it).
import Dockerode from 'dockerode'
import http from 'node:http'
import { inspect } from 'node:util'
import { BerthError } from '../../../shared/errors'

const CONNECTION_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ENOENT', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH'])

export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined
  if (!e) return false
  if (e instanceof BerthError) return e.code === 'unreachable'
  return (!!e.code && CONNECTION_ERRORS.has(e.code)) || /socket hang up/i.test(e.message ?? '')
}

export interface DockerClientOptions {
  socketPath: string
  server: string
  /** Turns a low-level failure into the reason a person can act on. */
  describe: (err: unknown) => string
  /** Called before a retry, e.g. to re-establish the ssh connection. */
  beforeRetry?: () => Promise<void>
  /** Fail every call with this reason, without dialling (an engine that is misconfigured) */
  refuse?: string | undefined
}

type DialOptions = { method?: string; hijack?: boolean; file?: unknown }
type Dial = (options: DialOptions, callback: (err: unknown, data?: unknown) => void) => void

export function createDockerClient(opts: DockerClientOptions): Dockerode {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, keepAliveMsecs: 10_000 })
  // docker-modem formats every request's options with util.inspect (showHidden, unlimited depth)
  // even when its debug output is off; the agent reaches every live socket with its buffers (the
  // exec streams of open terminals), so each Docker call cost seconds of blocked event loop.
  Object.defineProperty(agent, inspect.custom, { value: () => '[http.Agent]' })
  const docker = new Dockerode({ socketPath: opts.socketPath, agent } as Dockerode.DockerOptions & { agent: http.Agent })
  const modem = docker.modem as unknown as { dial: Dial }
  const dial = modem.dial.bind(modem)
  const unreachable = (err: unknown) =>
    err instanceof BerthError ? err : new BerthError('unreachable', `server ${opts.server} is unreachable: ${opts.describe(err)}`)
  modem.dial = (options, callback) => {
    if (opts.refuse) return callback(new BerthError('unreachable', opts.refuse))
    const retryable = (options.method === 'GET' || options.method === 'HEAD') && !options.hijack && !options.file
    const attempt = (n: number) =>
      dial(options, (err, data) => {
        if (err && isConnectionError(err)) {
          if (n === 0 && retryable) {
            const before = opts.beforeRetry ? opts.beforeRetry() : Promise.resolve()
            before.then(
              () => attempt(1),
              (e: unknown) => callback(unreachable(e)),
            )
            return
          }
          callback(unreachable(err))
          return
        }
        callback(err, data)
      })
    attempt(0)
  }
  return docker
}
