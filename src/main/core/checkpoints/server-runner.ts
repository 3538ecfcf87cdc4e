// Runs the server script (server-script.ts) on an engine: attached for short steps, or as a detached
// job whose status file the core follows, so the work finishes on the server whatever happens to the
// laptop's connection, and can be followed again after a drop or a crash.
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import { shq, type Engine, type ShellResult } from '../engines/engine'
import { SERVER_SCRIPT, SERVER_SCRIPT_HASH } from './server-script'

/** One line of a job's status file, parsed. */
export type JobLine =
  | { kind: 'stage'; stage: string; ms: number; arg: string | undefined }
  | { kind: 'note'; text: string }
  | { kind: 'fallback'; text: string }
  | { kind: 'result'; value: Record<string, unknown> }
  | { kind: 'error'; text: string }

export interface JobOutcome {
  /** false: we lost sight of the job (the connection dropped); it may still be running on the server */
  followed: boolean
  /** the job's exit code; null when the job died without finishing (a reboot) or never existed */
  rc: number | null
  /** 'missing': no such job on the server; 'lost': it stopped without finishing */
  gone?: 'missing' | 'lost'
  result: Record<string, unknown> | undefined
  error: string | undefined
  notes: string[]
  fallback: string | undefined
  stages: Record<string, number>
  /** status lines seen so far: following again from here skips nothing and repeats nothing */
  lines: number
  /** why following stopped, when followed is false */
  reason?: string
}

const MISSING_SCRIPT = 97

export function parseJobLine(line: string): JobLine | undefined {
  const sp = line.indexOf(' ')
  const head = sp < 0 ? line : line.slice(0, sp)
  const rest = sp < 0 ? '' : line.slice(sp + 1)
  switch (head) {
    case 'stage': {
      const [stage, ms, arg] = rest.split(' ')
      return stage ? { kind: 'stage', stage, ms: Number(ms) || 0, arg } : undefined
    }
    case 'note':
      return { kind: 'note', text: rest }
    case 'fallback':
      return { kind: 'fallback', text: rest }
    case 'error':
      return { kind: 'error', text: rest }
    case 'result':
      try {
        return { kind: 'result', value: JSON.parse(rest) as Record<string, unknown> }
      } catch {
        return { kind: 'error', text: `the server answered with a malformed result: ${rest.slice(0, 200)}` }
      }
    default:
      return undefined
  }
}

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

  private async spawn(args: string[], onStdout: (chunk: string) => void): Promise<{ code: number | null; stderr: string }> {
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
      return { code, stderr: Buffer.concat(err).toString('utf8') }
    }
    throw new BerthError('internal', `could not install Berth's server script on ${this.engine.name}`)
  }

  /**
   * Starts a command whose stdin and stdout the caller streams (a transfer's data): the script is
   * installed first, since an install would take the command's stdin.
   */
  async stream(args: string[]): Promise<import('../engines/engine').ShellProcess> {
    if (!this.installed) await this.run(['probe'])
    return await this.engine.shell(this.launcher(args, false), { env: { BERTH_HOME_ID: this.homeId } })
  }

  /** Runs a short command attached and collects its output. */
  async run(args: string[]): Promise<ShellResult> {
    let stdout = ''
    const { code, stderr } = await this.spawn(args, (d) => (stdout += d))
    return { code, stdout, stderr }
  }

  /** Runs a command and returns its "key value" lines; fails with the script's error line. */
  async fields(args: string[], what: string): Promise<Map<string, string[]>> {
    const r = await this.run(args)
    const out = new Map<string, string[]>()
    for (const line of r.stdout.split('\n')) {
      const sp = line.indexOf(' ')
      if (sp <= 0) continue
      const k = line.slice(0, sp)
      out.set(k, [...(out.get(k) ?? []), line.slice(sp + 1)])
    }
    if (r.code !== 0) {
      const reason = out.get('error')?.[0] ?? oneSentence(r.stderr || `exit ${r.code ?? 'on a dropped connection'}`)
      throw new BerthError('internal', `${what} failed on ${this.engine.name}: ${reason}`)
    }
    return out
  }

  /** Starts a detached job on the server and follows it, in one round trip. */
  async start(job: string, args: string[], onLine: (l: JobLine) => void): Promise<JobOutcome> {
    return await this.follow(job, 0, onLine, args)
  }

  /**
   * Follows a job's status from line `from` until it finishes, or until the connection drops
   * (followed: false: the job goes on; follow again from `lines`). With `launch`, starts it first.
   */
  async follow(job: string, from: number, onLine: (l: JobLine) => void, launch?: string[]): Promise<JobOutcome> {
    const o: JobOutcome = { followed: false, rc: null, result: undefined, error: undefined, notes: [], fallback: undefined, stages: {}, lines: from }
    let buf = ''
    let sawRc = false
    const take = (line: string) => {
      if (line.startsWith('rc ')) {
        sawRc = true
        const v = line.slice(3).trim()
        if (v === 'missing' || v === 'lost') o.gone = v
        else o.rc = Number(v)
        return
      }
      o.lines++
      const l = parseJobLine(line)
      if (!l) return
      if (l.kind === 'stage') o.stages[l.stage] = l.ms
      else if (l.kind === 'note') o.notes.push(l.text)
      else if (l.kind === 'fallback') o.fallback = l.text
      else if (l.kind === 'result') o.result = l.value
      else if (l.kind === 'error') o.error = l.text
      onLine(l)
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
