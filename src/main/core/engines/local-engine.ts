import { spawn } from 'node:child_process'
import net from 'node:net'
import type Dockerode from 'dockerode'
import { BerthError } from '../../../shared/errors'
import { createDockerClient } from './docker-client'
import type { Engine, EngineFacts, ShellProcess } from './engine'
import { readFacts } from './facts'

/** The laptop's own engine, on its Docker socket. */
export class LocalEngine implements Engine {
  readonly kind = 'local' as const
  readonly docker: Dockerode
  private cachedFacts?: EngineFacts

  constructor(
    readonly name: string,
    private readonly socketPath: string,
    /** why the configured engine cannot be used: every call fails with it */
    problem: string | null = null,
  ) {
    this.docker = createDockerClient({
      socketPath,
      server: name,
      refuse: problem ?? undefined,
      describe: (err) => {
        const code = (err as { code?: string }).code
        if (code === 'ENOENT' || code === 'ECONNREFUSED') return `no Docker engine answers on ${socketPath}; start Docker and try again`
        if (code === 'EACCES') return `permission denied on ${socketPath}; add your user to the docker group`
        return (err as Error).message
      },
    })
  }

  async ready(): Promise<void> {
    await this.docker.ping()
  }

  async facts(): Promise<EngineFacts> {
    this.cachedFacts ??= await readFacts(this.docker, `unix://${this.socketPath}`)
    return this.cachedFacts
  }

  async shell(script: string, opts: { env?: Record<string, string> } = {}): Promise<ShellProcess> {
    const child = spawn('sh', ['-c', script], {
      env: { ...process.env, ...opts.env, DOCKER_HOST: `unix://${this.socketPath}` },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let signal: string | null = null
    const exit = new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(127))
      child.on('close', (code, sig) => {
        signal = sig
        resolve(code)
      })
    })
    const ending = () => (signal ? `ended by signal ${signal.replace(/^SIG/, '')}` : 'ended with no exit status')
    return { stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exit, ending, kill: () => child.kill('SIGKILL') }
  }

  async connectTcp(host: string, port: number): Promise<net.Socket> {
    return await new Promise((resolve, reject) => {
      const s = net.connect({ host, port }, () => resolve(s))
      s.once('error', (e) => reject(new BerthError('unreachable', `cannot reach ${host}:${port}: ${e.message}`)))
    })
  }

  isConnected(): boolean {
    return true
  }

  async close(): Promise<void> {
    ;(this.docker.modem as unknown as { agent?: { destroy(): void } }).agent?.destroy()
  }
}
