// Detached jobs (`berth exec --detach`): each verb is one short exec of job.sh inside the session.
// What the session writes back (ids, states, times, its log) is checked and parsed here: it reaches
// the user as text and never a command on the host.
import { randomBytes } from 'node:crypto'
import type { z } from 'zod'
import type { Job, JobLogs, JobSignal, LogCursor } from '../../../shared/contract/jobs'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { EngineRegistry } from '../engines/engine-registry'
import { startExec } from '../sessions/exec'
import type { SessionService } from '../sessions/session-service'
import { remoteOf } from '../sessions/session-shape'
import type { SessionRow } from '../store/sessions-repo'
import JOB_SCRIPT from './job.sh'
import { parseJobLine, parseLogRead, quoteCommand } from './job-text'

/** The most one read of a log returns (the CLI and the UI read on with the cursor). */
const READ_BYTES = 256 * 1024

export class JobsService {
  constructor(
    private readonly sessions: SessionService,
    private readonly engines: EngineRegistry,
  ) {}

  private running(ref: string, verb: string): SessionRow & { containerId: string } {
    const row = this.sessions.resolve(ref)
    if (row.state === 'finished') throw new BerthError('refused', `session ${row.name} finished`)
    if (row.state !== 'running' || !row.containerId) {
      throw new BerthError('conflict', `session ${row.name} is ${row.state}: it must be running to ${verb}`, { state: row.state })
    }
    return row as SessionRow & { containerId: string }
  }

  /** Runs job.sh VERB ARGS in the session: its exit code and output. */
  private async script(row: Pick<SessionRow, 'server'> & { containerId: string }, args: string[], env?: Record<string, string>, user?: string): Promise<{ code: number | null; out: Buffer; err: string }> {
    const engine = this.engines.get(row.server)
    await engine.ready()
    const out: Buffer[] = []
    const err: Buffer[] = []
    const cmd = ['/bin/sh', '-c', JOB_SCRIPT, 'berth-job', ...args]
    const h = await startExec(engine.docker, row.containerId, { cmd, env, user }, (fd, d) => (fd === 1 ? out : err).push(d))
    const { code, dropped } = await h.exit
    if (dropped) throw new BerthError('unreachable', `the connection to server ${row.server} dropped`)
    return { code, out: Buffer.concat(out), err: Buffer.concat(err).toString('utf8') }
  }

  /**
   * Berth's own steps (the folder, reads, signals) run as root, uid 0, which every image has: a job
   * may belong to another user than the image's default one, and its folder is its user's alone.
   */
  private asRoot(row: Pick<SessionRow, 'server'> & { containerId: string }, args: string[]): ReturnType<JobsService['script']> {
    return this.script(row, args, undefined, '0')
  }

  private failure(row: SessionRow, what: string, r: { code: number | null; out: Buffer; err: string }): BerthError {
    const said = /^error (.*)$/m.exec(r.out.toString('utf8'))?.[1] ?? oneSentence(r.err || `exit ${r.code ?? '?'}`)
    const code = r.code === 4 ? 'not_found' : r.code === 2 ? 'usage' : 'refused'
    return new BerthError(code, `${what} in session ${row.name}: ${said.slice(0, 300)}`)
  }

  async start(ref: string, cmd: string[], env?: Record<string, string>): Promise<Job> {
    const first = this.sessions.resolve(ref)
    for (const hook of this.sessions.beforeAttach) await hook(first)
    const row = this.running(first.id, 'start a job')
    const id = await this.launch(row, row.containerId, cmd, env)
    return (await this.list(row.id)).find((j) => j.id === id) ?? { id, command: quoteCommand(cmd), state: 'running', exitCode: null, startedAt: new Date().toISOString(), endedAt: null }
  }

  /**
   * Starts a job in a container that runs, whatever the session's state says (a start hook runs
   * before the session counts as running), as the session's user with its environment under `env`.
   */
  async launch(row: SessionRow, containerId: string, cmd: string[], env?: Record<string, string>): Promise<string> {
    const id = `j${randomBytes(5).readUIntBE(0, 5).toString(36).padStart(8, '0').slice(0, 8)}`
    const remote = remoteOf(row)
    const at = { server: row.server, containerId }
    // the jobs' folder first, as root (the session's user may not write /tmp); a refusal is the start's to say
    await this.asRoot(at, ['prepare']).catch(() => undefined)
    const r = await this.script(at, ['start', id, quoteCommand(cmd), ...cmd], { ...remote.env, ...env }, remote.user)
    if (r.code !== 0 || !r.out.toString('utf8').includes(`started ${id}`)) throw this.failure(row, 'could not start the job', r)
    return id
  }

  /** A job's state and the last lines of its log, read from a given container (for the start hooks' followers). */
  async peek(row: SessionRow, containerId: string, id: string, lines: number): Promise<{ state: string; exitCode: number | null; lines: string[] }> {
    const at = { server: row.server, containerId }
    const listed = await this.asRoot(at, ['list'])
    const job = listed.out.toString('utf8').split('\n').map(parseJobLine).find((j) => j?.id === id)
    if (!job) throw new BerthError('not_found', `no job ${id} in session ${row.name}`)
    const r = await this.asRoot(at, ['read', id, '0', '0', String(READ_BYTES)])
    const read = r.code === 0 ? parseLogRead(r.out, { gen: 0, offset: 0 }) : { lines: [] }
    return { state: job.state, exitCode: job.exitCode, lines: read.lines.map((l) => l.text).slice(-lines) }
  }

  async list(ref: string): Promise<Job[]> {
    const row = this.running(ref, 'list its jobs')
    const r = await this.asRoot(row, ['list'])
    if (r.code !== 0) throw this.failure(row, 'could not list the jobs', r)
    const jobs = r.out.toString('utf8').split('\n').map(parseJobLine).filter((j): j is Job => j !== null)
    return jobs.sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.id.localeCompare(b.id))
  }

  private async job(row: SessionRow & { containerId: string }, id: string): Promise<Job> {
    const job = (await this.list(row.id)).find((j) => j.id === id)
    if (!job) throw new BerthError('not_found', `no job ${id} in session ${row.name}`)
    return job
  }

  async logs(ref: string, id: string, cursor?: z.infer<typeof LogCursor>, since?: string): Promise<z.infer<typeof JobLogs>> {
    const row = this.running(ref, 'read its jobs')
    const job = await this.job(row, id)
    const at = cursor ?? { gen: 0, offset: 0 }
    const r = await this.asRoot(row, ['read', id, String(at.gen), String(at.offset), String(READ_BYTES)])
    if (r.code !== 0) throw this.failure(row, `could not read job ${id}`, r)
    const read = parseLogRead(r.out, at)
    const from = since ? Date.parse(since) : Number.NEGATIVE_INFINITY
    return { job: { ...job, state: read.state ?? job.state }, lines: read.lines.filter((l) => !l.at || Date.parse(l.at) >= from), cursor: read.cursor, more: read.more, skipped: read.skipped }
  }

  async kill(ref: string, id: string, signal: z.infer<typeof JobSignal> = 'TERM'): Promise<{ job: Job; signalled: boolean }> {
    const row = this.running(ref, 'signal its jobs')
    await this.job(row, id)
    const r = await this.asRoot(row, ['kill', id, signal])
    if (r.code !== 0) throw this.failure(row, `could not signal job ${id}`, r)
    return { job: await this.job(row, id), signalled: /^signalled 1$/m.test(r.out.toString('utf8')) }
  }
}
