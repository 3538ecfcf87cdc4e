// What a server can do for Berth: a Docker API client that never sees how the server is reached,
// and a POSIX shell on the server for the few steps the Docker API cannot do (thin image archives,
// work that must finish even if the laptop's connection drops).
import type Dockerode from 'dockerode'
import type { Readable, Writable } from 'node:stream'
import { isNotFound } from './docker-errors'

export interface ShellProcess {
  stdin: Writable
  stdout: Readable
  stderr: Readable
  /** Resolves with the exit code (null when killed by a signal or the connection dropped). */
  exit: Promise<number | null>
  /** Once `exit` gave null: why, in words ("ended by signal KILL", "the ssh connection to … closed: Keepalive timeout"). */
  ending(): string
  kill(): void
}

export interface ShellResult {
  code: number | null
  stdout: string
  stderr: string
  /** with a null code: why there was none (ShellProcess.ending) */
  ending?: string
}

/** "exit 3", or why a process gave no exit code ("ended by signal KILL"), for a failure's message. */
export function exitWords(code: number | null, ending: string | undefined): string {
  return code === null ? (ending ?? 'ended with no exit status') : `exit ${code}`
}

export interface EngineFacts {
  version: string
  apiVersion: string
  experimental: boolean
  os: string
  kernel: string
  dockerRootDir: string
  /** the engine's address as the server's own docker CLI names it (DOCKER_HOST) */
  dockerHost: string
}

export interface Engine {
  readonly name: string
  readonly kind: 'local' | 'ssh'
  /** A Docker API client; its calls reconnect by themselves after a dropped connection. */
  readonly docker: Dockerode
  /** Connects (for ssh: handshake, host key check, auth) and checks the engine answers. */
  ready(): Promise<void>
  facts(): Promise<EngineFacts>
  /** Runs `sh -c script` on the server, with DOCKER_HOST pointing at this engine. */
  shell(script: string, opts?: { env?: Record<string, string> }): Promise<ShellProcess>
  /** Opens a TCP connection from the server to host:port (an ssh direct-tcpip channel for ssh). */
  connectTcp(host: string, port: number): Promise<import('node:stream').Duplex>
  isConnected(): boolean
  close(): Promise<void>
}

/** Runs a script to completion and collects its output (for short helper steps). */
export async function runShell(engine: Engine, script: string, input?: string | Buffer): Promise<ShellResult> {
  const p = await engine.shell(script)
  const out: Buffer[] = []
  const err: Buffer[] = []
  p.stdout.on('data', (d: Buffer) => out.push(d))
  p.stderr.on('data', (d: Buffer) => err.push(d))
  if (input !== undefined) p.stdin.end(input)
  else p.stdin.end()
  const code = await p.exit
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }
}

/** Quotes a value for a POSIX shell. */
export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** What the engine knows of a container, or null when it has no such container (other errors are thrown). */
export async function inspectContainer(engine: Engine, id: string): Promise<Dockerode.ContainerInspectInfo | null> {
  return await engine.docker
    .getContainer(id)
    .inspect()
    .catch((e: unknown) => (isNotFound(e) ? null : Promise.reject(e)))
}
