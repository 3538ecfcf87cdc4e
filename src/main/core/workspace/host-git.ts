// Git on the host, against the user's repository DIR. Every call has a deadline and a bound on what
// it keeps of git's output; object ids that reach a command are checked hex first, and the commands
// that parse options get --end-of-options before anything that names an object or a ref.
import { spawn } from 'node:child_process'
import { BerthError, oneSentence } from '../../../shared/errors'

export interface GitResult {
  code: number | null
  stdout: Buffer
  stderr: string
  /** git did not finish in time and was killed */
  timedOut: boolean
}

export interface GitOptions {
  cwd?: string | undefined
  input?: Buffer | undefined
  env?: Record<string, string> | undefined
  timeoutMs?: number | undefined
  /** past this many bytes of stdout git is stopped and the call fails */
  maxStdout?: number | undefined
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000
const STDERR_KEEP = 16 << 10

export function git(args: string[], opts: GitOptions = {}): Promise<GitResult> {
  return new Promise((res) => {
    const child = spawn('git', args, { cwd: opts.cwd, env: opts.env ? { ...process.env, ...opts.env } : process.env, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outBytes = 0
    let errBytes = 0
    let timedOut = false
    let overflow = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS)
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length
      if (opts.maxStdout !== undefined && outBytes > opts.maxStdout) {
        overflow = true
        child.kill('SIGKILL')
        return
      }
      out.push(d)
    })
    child.stderr.on('data', (d: Buffer) => {
      if (errBytes < STDERR_KEEP) err.push(d.subarray(0, STDERR_KEEP - errBytes))
      errBytes += d.length
    })
    child.stdin.on('error', () => undefined)
    child.on('error', (e) => {
      clearTimeout(timer)
      res({ code: 127, stdout: Buffer.alloc(0), stderr: e.message, timedOut: false })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      const stderr = overflow ? `git printed more than ${opts.maxStdout} bytes` : Buffer.concat(err).toString()
      res({ code: overflow ? null : code, stdout: Buffer.concat(out), stderr: timedOut ? 'git did not finish in time' : stderr, timedOut })
    })
    child.stdin.end(opts.input)
  })
}

/** Git's output as one trimmed line, or a BerthError naming what failed. */
export async function gitLine(what: string, args: string[], opts: GitOptions = {}): Promise<string> {
  const r = await git(args, { maxStdout: 64 << 10, ...opts })
  if (r.code !== 0) throw new BerthError('git', `could not ${what}: ${oneSentence(r.stderr || `git exited ${r.code}`)}`)
  return r.stdout.toString().trim()
}

/** A full object id as git prints it: 40 hex digits (SHA-1) or 64 (SHA-256), lower case. */
const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

export function isOid(s: string): boolean {
  return OID.test(s)
}

/** Checks an id before it is handed to git: anything but a full hex object id is refused. */
export function oid(s: string, what: string): string {
  if (!isOid(s)) throw new BerthError('refused', `${what} is not an object id git would accept (${JSON.stringify(s.slice(0, 60))}); nothing was changed`)
  return s
}

/** DIR's view of git: the few questions save asks, each one command with checked ids. */
export class HostRepo {
  constructor(readonly dir: string) {}

  run(args: string[], opts: GitOptions = {}): Promise<GitResult> {
    return git(['-C', this.dir, ...args], opts)
  }

  /** The commit a ref or id names in DIR, as a checked id, or null when it names none. */
  async commitOf(rev: string): Promise<string | null> {
    const r = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { maxStdout: 256, timeoutMs: 60_000 })
    const id = r.stdout.toString().trim()
    return r.code === 0 && isOid(id) ? id : null
  }

  async treeOf(commit: string): Promise<string> {
    return oid(await gitLine('read the saved tree', ['-C', this.dir, 'rev-parse', '--verify', '--end-of-options', `${oid(commit, 'the commit')}^{tree}`], { timeoutMs: 60_000 }), 'the tree')
  }

  /** Is `a` an ancestor of (or equal to) `b`? Both must be commits DIR has. */
  async isAncestor(a: string, b: string): Promise<boolean> {
    const r = await this.run(['merge-base', '--is-ancestor', '--end-of-options', oid(a, 'the commit'), oid(b, 'the commit')], { maxStdout: 0, timeoutMs: 120_000 })
    if (r.timedOut) throw new BerthError('timeout', `git took too long to compare two commits in ${this.dir}`)
    return r.code === 0
  }

  async hasCommit(id: string): Promise<boolean> {
    return isOid(id) && (await this.commitOf(id)) === id
  }

  async isBare(): Promise<boolean> {
    return (await this.run(['rev-parse', '--is-bare-repository'], { maxStdout: 64, timeoutMs: 30_000 })).stdout.toString().trim() === 'true'
  }

  /** The ref HEAD points at (refs/heads/...), or '' when detached. */
  async headRef(): Promise<string> {
    return (await this.run(['symbolic-ref', '-q', 'HEAD'], { maxStdout: 4096, timeoutMs: 30_000 })).stdout.toString().trim()
  }

  async config(key: string): Promise<string> {
    return (await this.run(['config', '--get', key], { maxStdout: 4096, timeoutMs: 30_000 })).stdout.toString().trim()
  }

  /** Points a ref of Berth's own namespace at an id, or deletes it (null). */
  async setOwnRef(ref: string, id: string | null): Promise<void> {
    if (!ref.startsWith('refs/berth/')) throw new BerthError('internal', `not a Berth ref: ${ref}`)
    const args = id === null ? ['update-ref', '-d', '--end-of-options', ref] : ['update-ref', '--end-of-options', ref, oid(id, 'the commit')]
    const r = await this.run(args, { maxStdout: 0, timeoutMs: 60_000 })
    if (r.code !== 0 && id !== null) throw new BerthError('git', `could not write ${ref} in ${this.dir}: ${oneSentence(r.stderr)}`)
  }
}
