// A user's Berth in a fresh BERTH_HOME, driven through the real CLI (bin/berth).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { cpSync, lstatSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import Dockerode from 'dockerode'
import { testHost } from './testhost'
import { connectOrStart } from '../../src/main/doors/control-client'
import type { CallArgs, CallName, CallResult } from '../../src/shared/contract'

export const ROOT = resolve(__dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'berth')

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

/** Waits for a child spawned with piped stdio after feeding it INPUT: its exit code and all it wrote; killed past timeoutMs. */
export function childOutput(child: ChildProcess, what: string, input: string | Buffer | undefined, timeoutMs: number): Promise<{ code: number; out: Buffer; err: Buffer }> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (d: Buffer) => out.push(d))
    child.stderr!.on('data', (d: Buffer) => err.push(d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${what} did not finish within ${timeoutMs / 1000} s`))
    }, timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, out: Buffer.concat(out), err: Buffer.concat(err) })
    })
    // a child that exits without reading its input must not crash the test with EPIPE
    child.stdin!.on('error', () => undefined)
    child.stdin!.end(input)
  })
}

export class BerthHome {
  readonly home: string

  constructor(readonly label = 'test') {
    this.home = mkdtempSync(join(tmpdir(), `berth-${label}-`))
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...process.env, BERTH_HOME: this.home, ...extra }
  }

  /** Runs `berth ARGS...` and waits for it. */
  run(args: string[], opts: { input?: string | Buffer; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<RunResult> {
    const child = spawn(process.execPath, [BIN, ...args], { env: this.env(opts.env), stdio: ['pipe', 'pipe', 'pipe'] } as SpawnOptions)
    return childOutput(child, `berth ${args.join(' ')}`, opts.input, opts.timeoutMs ?? 120_000).then((r) => ({ code: r.code, stdout: r.out.toString(), stderr: r.err.toString() }))
  }

  /** Runs a verb that must succeed with --json and returns its parsed output. */
  async json<T = any>(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<T> {
    const r = await this.run([...args, '--json'], opts)
    if (r.code !== 0) throw new Error(`berth ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`)
    return JSON.parse(r.stdout) as T
  }

  /** Adds the office engine as server NAME, through the shared sshd or through VIA (a test's own PrivateSshd). */
  async addOffice(name = 'office', via?: { url: string; fingerprint(): string }): Promise<void> {
    const h = testHost()
    await this.json(['server', 'add', name, via?.url ?? h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', via?.fingerprint() ?? h.officeFingerprint])
  }

  daemonPid(): number | undefined {
    const f = join(this.home, 'daemon.pid')
    return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) : undefined
  }

  /** Calls the running core through its control socket (the contract, as the CLI does). */
  async call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> {
    const c = await connectOrStart(this.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    try {
      return await c.call(name, args)
    } finally {
      c.close()
    }
  }

  async homeId(): Promise<string> {
    return (await this.call('daemon.info', {})).homeId
  }

  /** Stops the daemon and removes every container and volume this home made, on both engines. */
  async cleanup(): Promise<void> {
    // BERTH_TEST_KEEP_LOGS=DIR keeps each home's logs there (a rare failure's evidence)
    const keep = process.env.BERTH_TEST_KEEP_LOGS
    if (keep) cpSync(this.home, join(keep, basename(this.home)), { recursive: true, filter: (f) => !/\.db(-wal|-shm)?$/.test(f) && !lstatSync(f).isSocket() })
    const pid = this.daemonPid()
    await this.run(['shutdown'], { timeoutMs: 30_000 }).catch(() => undefined)
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone
      }
    }
    await removeLabelled(this.home)
    rmSync(this.home, { recursive: true, force: true })
  }
}

export const localDocker = () => new Dockerode({ socketPath: testHost().localSocket })
export const officeDocker = () => new Dockerode({ socketPath: testHost().officeSocket })

/** Containers and volumes of sessions made from this home, found by its homeId label. */
export async function containersOf(docker: Dockerode, homeId: string) {
  return await docker.listContainers({ all: true, filters: { label: [`berth.home=${homeId}`] } })
}

async function removeLabelled(home: string): Promise<void> {
  let homeId: string | undefined
  try {
    const Database = (await import('better-sqlite3')).default
    const db = new Database(join(home, 'berth.db'), { readonly: true })
    const row = db.prepare("SELECT value FROM settings WHERE key = 'homeId'").get() as { value: string } | undefined
    db.close()
    homeId = row ? (JSON.parse(row.value) as string) : undefined
  } catch {
    return
  }
  if (!homeId) return
  for (const docker of [localDocker(), officeDocker()]) await removeHomeFrom(docker, homeId)
}

/** Everything one Berth home made on an engine: sessions, snapshot holders, volumes, images. */
export async function removeHomeFrom(docker: Dockerode, homeId: string): Promise<void> {
  for (const label of [`berth.home=${homeId}`, `berth.holder=${homeId}`]) {
    const cs = await docker.listContainers({ all: true, filters: { label: [label] } }).catch(() => [])
    for (const c of cs) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined)
  }
  for (const label of [`berth.home=${homeId}`, `berth.holder=${homeId}`]) {
    const vs = await docker.listVolumes({ filters: { label: [label] } }).catch(() => ({ Volumes: [] }))
    for (const v of vs.Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined)
  }
  // committed images (snapshots, sessions made again) carry the home's label from their container;
  // a session's own tag may also sit on an image nobody labelled (a base image after a move)
  const labelled: Dockerode.ImageInfo[] = await docker.listImages({ filters: { label: [`berth.home=${homeId}`] } }).catch(() => [])
  const tagged: Dockerode.ImageInfo[] = await docker.listImages({ filters: { reference: [`berth/*:${homeId}.*`] } }).catch(() => [])
  const tags = new Set<string>()
  for (const img of labelled) for (const t of img.RepoTags ?? []) if (t.startsWith('berth/')) tags.add(t)
  for (const img of tagged) for (const t of img.RepoTags ?? []) if (t.includes(`:${homeId}.`)) tags.add(t)
  for (const tag of tags) await docker.getImage(tag).remove().catch(() => undefined)
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls until `f` returns a truthy value. */
export async function until<T>(f: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const v = await f()
      if (v) return v as NonNullable<T>
    } catch (e) {
      last = e
    }
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`)
}
