// Runs the server script (server-script.ts) on an engine: attached for short steps, or as a detached
// job whose status file the core follows, so the work finishes on the server whatever happens to the
// laptop's connection, and can be followed again after a drop or a crash.
import { BerthError, oneSentence, reasonOf, type ErrorCode } from '../../../../shared/errors'
import { exitWords, shq, type Engine, type ShellProcess, type ShellResult } from '../engine'
import { emptyOutcome, parseFields, parseJobLine, takeLine, type JobLine, type JobOutcome } from './job-protocol'
import { SERVER_SCRIPT, SERVER_SCRIPT_HASH } from './server-script'

export type { JobLine, JobOutcome } from './job-protocol'

const MISSING_SCRIPT = 97

export class ServerRunner {
  private installed = false

  constructor(
    readonly engine: Engine,
    private readonly homeId: string,
  ) {}

  /**
   * The command line that runs the script with ARGS; with `install`, the script arrives on stdin and
   * is written (atomically) where it belongs first.
   */
  private launcher(args: string[], install: boolean): string {
    const file = `"\${XDG_STATE_HOME:-$HOME/.local/state}/berth/bin/berth-server-${SERVER_SCRIPT_HASH}.sh"`
    const setup = install
      ? `F=${file}; if [ -f "$F" ]; then cat >/dev/null; else mkdir -p "\${F%/*}" && cat > "$F.$$" && mv "$F.$$" "$F" || exit 96; fi; `
      : `F=${file}; [ -f "$F" ] || exit ${MISSING_SCRIPT}; `
    return `${setup}exec sh "$F" ${args.map(shq).join(' ')}`
  }

  private async spawn(args: string[], onStdout: (chunk: string) => void): Promise<{ code: number | null; stderr: string; ending?: string }> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const install = !this.installed || attempt > 0
      const p = await this.engine.shell(this.launcher(args, install), { env: { BERTH_HOME_ID: this.homeId } })
      const err: Buffer[] = []
      p.stdout.setEncoding('utf8')
      p.stdout.on('data', (d: string) => onStdout(d))
      p.stderr.on('data', (d: Buffer) => err.push(d))
      p.stdin.on('error', () => undefined)
      p.stdin.end(install ? SERVER_SCRIPT : undefined)
      const code = await p.exit
      if (code === MISSING_SCRIPT && !install) {
        this.installed = false
        continue
      }
      if (code !== 96 && code !== null) this.installed = true
      return { code, stderr: Buffer.concat(err).toString('utf8'), ...(code === null ? { ending: p.ending() } : {}) }
    }
    throw new BerthError('unavailable', `could not install Berth's server script on ${this.engine.name}`)
  }

  /**
   * Starts a command whose stdin and stdout the caller streams (a transfer's data): the script is
   * installed first, since an install would take the command's stdin.
   */
  async stream(args: string[]): Promise<ShellProcess> {
    if (!this.installed) await this.run(['probe'])
    return await this.engine.shell(this.launcher(args, false), { env: { BERTH_HOME_ID: this.homeId } })
  }

  /** Runs a short command attached and collects its output. */
  async run(args: string[]): Promise<ShellResult> {
    let stdout = ''
    const { code, stderr, ending } = await this.spawn(args, (d) => (stdout += d))
    return { code, stdout, stderr, ...(ending ? { ending } : {}) }
  }

  /**
   * Runs a command and returns its "key value" lines; fails with the script's error line. `again`:
   * the command only reads (or finds its own earlier work), so one that ended with no exit status
   * (its connection dropped, and the next call reconnects) is run once more before failing.
   */
  async fields(args: string[], what: string, code: ErrorCode = 'internal', opts: { again?: boolean } = {}): Promise<Map<string, string[]>> {
    let r = await this.run(args)
    let first: string | undefined
    if (r.code === null && opts.again) {
      first = exitWords(r.code, r.ending)
      r = await this.run(args)
    }
    const out = parseFields(r.stdout)
    if (r.code !== 0) {
      const reason = out.get('error')?.[0] ?? oneSentence(r.stderr || exitWords(r.code, r.ending))
      const tried = first ? ` (and before that, once: ${first})` : ''
      throw new BerthError(r.code === null ? 'unreachable' : code, `${what} failed on ${this.engine.name}: ${reason}${tried}`)
    }
    return out
  }

  /** The one value of KEY a command printed ("bytes 12"), or a failure naming what was missing; `again` as in fields(). */
  async field(args: string[], key: string, what: string, opts: { again?: boolean } = {}): Promise<string> {
    const v = (await this.fields(args, what, 'internal', opts)).get(key)?.[0]
    if (v === undefined) throw new BerthError('engine', `${what} on ${this.engine.name} gave no ${key}`)
    return v
  }

  /**
   * Starts a detached job on the server and follows it, in one round trip. With `limitSeconds`, the
   * server ends the job (and everything it started) once it has run that long, laptop or not.
   */
  async start(job: string, args: string[], onLine: (l: JobLine) => void, opts: { limitSeconds?: number } = {}): Promise<JobOutcome> {
    const limit = opts.limitSeconds ? ['--limit', String(Math.ceil(opts.limitSeconds))] : []
    return await this.follow(job, 0, onLine, [...limit, ...args])
  }

  /**
   * Follows a job's status from line `from` until it finishes, or until the connection drops
   * (followed: false: the job goes on; follow again from `lines`). With `launch`, starts it first.
   */
  async follow(job: string, from: number, onLine: (l: JobLine) => void, launch?: string[]): Promise<JobOutcome> {
    const o = emptyOutcome(from)
    let buf = ''
    let sawRc = false
    const take = (raw: string) => {
      const l = parseJobLine(raw)
      if (!l) {
        o.lines++
        return
      }
      if (takeLine(o, l)) sawRc = true
      else onLine(l)
    }
    let r: { code: number | null; stderr: string }
    try {
      r = await this.spawn(launch ? ['start', job, ...launch] : ['follow', job, String(from)], (d) => {
        buf += d
        let nl: number
        while ((nl = buf.indexOf('\n')) >= 0) {
          take(buf.slice(0, nl))
          buf = buf.slice(nl + 1)
        }
      })
    } catch (e) {
      o.reason = reasonOf(e)
      return o
    }
    if (sawRc) {
      o.followed = true
      return o
    }
    o.reason = r.code === null ? `the connection to ${this.engine.name} dropped` : oneSentence(r.stderr || `the server script exited with ${r.code}`)
    return o
  }

  /** Removes finished jobs' folders on the server (their outcome is in the store). */
  async forget(jobs: string[]): Promise<void> {
    if (jobs.length) await this.run(['forget', ...jobs]).catch(() => undefined)
  }
}

const runners = new WeakMap<Engine, Map<string, ServerRunner>>()

/** The one runner of the server script for an engine and a Berth home (the script is installed once). */
export function runnerFor(engine: Engine, homeId: string): ServerRunner {
  let byHome = runners.get(engine)
  if (!byHome) runners.set(engine, (byHome = new Map()))
  let r = byHome.get(homeId)
  if (!r) byHome.set(homeId, (r = new ServerRunner(engine, homeId)))
  return r
}
