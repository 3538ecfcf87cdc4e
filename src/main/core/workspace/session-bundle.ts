// Bringing the session branch to the host: the session writes a git bundle to its stdout (bounded in
// size and time, kept in a private file), git on the host verifies it against DIR, and fetches only
// the session branch, with fsck, into a ref of Berth's own namespace. What the host then knows of the
// session's work is what git in DIR says that ref points at, never what the session printed.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BerthError, oneSentence } from '../../../shared/errors'
import { type HostRepo, oid } from './host-git'
import { BUNDLE_SCRIPT, sessionText } from './workspace-scripts'
import type { RunOptions, ScriptResult } from './workspace-runner'

export type Run = (script: string, opts?: RunOptions) => Promise<ScriptResult>

/** The largest bundle a save takes from a session. */
export const MAX_BUNDLE_BYTES = 2 * 1024 ** 3
const BUNDLE_TIMEOUT_MS = 15 * 60_000
const VERIFY_TIMEOUT_MS = 10 * 60_000

const SESSION_BRANCH = /^session\/[A-Za-z0-9_-]{1,64}$/

/** Berth's refs for one save in DIR: what came from the session, what goes to it. */
export function saveRefs(sessionId: string): { incoming: string; outgoing: string } {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionId)) throw new BerthError('internal', `not a session id: ${sessionId}`)
  return { incoming: `refs/berth/save/${sessionId}/incoming`, outgoing: `refs/berth/save/${sessionId}/outgoing` }
}

/**
 * Fetches the session branch into `incoming` and returns the commit it names in DIR. `haves` are
 * commits DIR has, which the session may leave out of the bundle.
 */
export async function receiveBranch(opts: {
  repo: HostRepo
  run: Run
  /** the session's name, for messages */
  name: string
  branch: string
  incoming: string
  haves: string[]
  maxBytes?: number | undefined
  timeoutMs?: number | undefined
}): Promise<string> {
  const { repo, branch, incoming } = opts
  if (!SESSION_BRANCH.test(branch)) throw new BerthError('internal', `not a session branch: ${branch}`)
  const tmp = mkdtempSync(join(tmpdir(), 'berth-save-'))
  const file = join(tmp, 'session.bundle')
  try {
    const haves = [...new Set(opts.haves.map((h) => oid(h, 'a commit of DIR')))]
    const made = await opts.run(BUNDLE_SCRIPT, {
      env: { BERTH_BRANCH: branch, BERTH_HAVES: haves.join(' ') },
      stdoutTo: file,
      maxStdout: opts.maxBytes ?? MAX_BUNDLE_BYTES,
      timeoutMs: opts.timeoutMs ?? BUNDLE_TIMEOUT_MS,
    })
    if (made.code !== 0) throw new BerthError('git', `could not bundle ${branch} in session ${opts.name}: ${sessionText(made.stderr || `exit ${made.code}`)}; nothing was saved`)
    const verified = await repo.run(['bundle', 'verify', '-q', '--end-of-options', file], { maxStdout: 64 << 10, timeoutMs: VERIFY_TIMEOUT_MS })
    if (verified.code !== 0) {
      throw new BerthError('refused', `session ${opts.name} sent something git does not accept as a bundle of ${branch} (${gitSaid(verified.stderr, file)}); nothing was saved`)
    }
    const fetched = await repo.run(
      ['-c', 'fetch.fsckObjects=true', '-c', 'transfer.fsckObjects=true', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', '--no-auto-gc', '--end-of-options', file, `+refs/heads/${branch}:${incoming}`],
      { maxStdout: 64 << 10, timeoutMs: VERIFY_TIMEOUT_MS },
    )
    if (fetched.code !== 0) {
      throw new BerthError('refused', `git in ${repo.dir} refused the bundle of ${branch} that session ${opts.name} sent (${gitSaid(fetched.stderr, file)}); nothing was saved`)
    }
    const commit = await repo.commitOf(incoming)
    if (!commit) throw new BerthError('refused', `the bundle session ${opts.name} sent holds no commit for ${branch}; nothing was saved`)
    return commit
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Git's first line about the bundle, without its private path or git's "error:" prefix. */
function gitSaid(stderr: string, file: string): string {
  const said = oneSentence(stderr.split(file).join('the bundle') || 'no answer').replace(/^(?:error|fatal): /, '')
  return sessionText(said, 160)
}
