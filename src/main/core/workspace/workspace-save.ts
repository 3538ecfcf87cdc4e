// Save: the only verb that moves work out of a session. Everything in /workspace is committed on the
// session branch inside the session; the branch comes to the host as a git bundle (session-bundle.ts),
// and the host makes the --no-ff merge into main and writes DIR's main with compare-and-swap. If
// DIR's main is not part of the branch (it moved since the session's base), DIR's main is first
// merged into the session branch inside the session (a conflict is reported and nothing in DIR
// changes), and the branch is fetched again. The session is never asked which commit is which: the
// host only believes git in DIR. Bundles travel through exec streams, so it works the same for a
// session on the laptop or on a connected server.
import { BerthError, oneSentence } from '../../../shared/errors'
import type { WorkspaceInfo } from '../../../shared/models'
import type { SessionRow } from '../store/sessions-repo'
import { HostRepo, oid } from './host-git'
import { MAX_BUNDLE_BYTES, receiveBranch, saveRefs, type Run } from './session-bundle'
import { COMMIT_SCRIPT, EXIT_CONFLICT, EXIT_OTHER_BRANCH, FOLLOW_SCRIPT, sessionLines, sessionText, SYNC_SCRIPT } from './workspace-scripts'

export type { Run }

export interface SaveOutcome {
  commit: string
  merge: string | null
  main: string
  changed: boolean
  mainMoved: boolean
  files: string[]
}

/** How long each step in the session may take, and how much it may send. */
export interface SaveLimits {
  commitMs: number
  bundleMs: number
  syncMs: number
  followMs: number
  maxBundleBytes: number
}

export const SAVE_LIMITS: SaveLimits = { commitMs: 10 * 60_000, bundleMs: 15 * 60_000, syncMs: 10 * 60_000, followMs: 2 * 60_000, maxBundleBytes: MAX_BUNDLE_BYTES }
/** the files list names at most this many (it is for people to read) */
const MAX_FILES = 10_000

/**
 * Who makes the commits: DIR's git identity, else Berth's. `env` carries it to git on the host only
 * where DIR's config has none (git would refuse to commit otherwise).
 */
async function gitIdentity(repo: HostRepo): Promise<{ name: string; email: string; env: Record<string, string> }> {
  const name = await repo.config('user.name')
  const email = await repo.config('user.email')
  const who = { name: name || 'Berth', email: email || 'berth@localhost' }
  const env: Record<string, string> = {}
  if (!name) Object.assign(env, { GIT_AUTHOR_NAME: who.name, GIT_COMMITTER_NAME: who.name })
  if (!email) Object.assign(env, { GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_EMAIL: who.email })
  return { ...who, env }
}

async function dirMain(repo: HostRepo): Promise<string> {
  const main = await repo.commitOf('refs/heads/main')
  if (!main) throw new BerthError('refused', `the workspace ${repo.dir} has no main branch any more; nothing was saved`)
  return main
}

export async function saveWorkspace(opts: {
  row: SessionRow
  ws: WorkspaceInfo
  run: Run
  message?: string | undefined
  /** may the working tree change (merging a moved main)? not under a paused session's processes */
  live: boolean
  stage: (stage: string, message: string) => void
  limits?: Partial<SaveLimits> | undefined
}): Promise<SaveOutcome> {
  const { row, ws, run } = opts
  const limits = { ...SAVE_LIMITS, ...opts.limits }
  const repo = new HostRepo(ws.dir)
  const refs = saveRefs(row.id)
  const who = await gitIdentity(repo)
  const env = {
    BERTH_BRANCH: ws.branch,
    BERTH_MSG: opts.message ?? `Work from Berth session ${row.name}`,
    BERTH_GIT_NAME: who.name,
    BERTH_GIT_EMAIL: who.email,
  }
  opts.stage('commit', `committing /workspace on ${ws.branch}`)
  const committed = await run(COMMIT_SCRIPT, { env, timeoutMs: limits.commitMs, maxStdout: 64 << 10 })
  if (committed.code === EXIT_OTHER_BRANCH) {
    const head = sessionText(committed.stdout.toString().split('\n')[0] ?? '', 100) || 'another branch'
    throw new BerthError('refused', `cannot save session ${row.name}: /workspace is on ${head}, not ${ws.branch}; switch back to it first`)
  }
  if (committed.code !== 0) throw new BerthError('git', `could not commit the workspace: ${sessionText(committed.stderr || `exit ${committed.code}`)}`)

  let mainMoved = false
  /** the main this save merged into the session branch, once it did */
  let synced: string | null = null
  /** the session's commit as the last bundle brought it (DIR has it, under refs.incoming) */
  let received: string | null = null
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      const main = await dirMain(repo)
      opts.stage('fetch', `bringing ${ws.branch} to ${ws.dir}`)
      // what DIR has of the session's history: its main, the session's base, what came before
      const haves = [main, ...(received ? [received] : []), ...(ws.base !== main && (await repo.hasCommit(ws.base)) ? [ws.base] : [])]
      const commit = await receiveBranch({ repo, run, name: row.name, branch: ws.branch, incoming: refs.incoming, haves, maxBytes: limits.maxBundleBytes, timeoutMs: limits.bundleMs })
      received = commit
      // Already saved: the session's work is in DIR's main, whatever DIR did since. Safe to repeat.
      if (await repo.isAncestor(commit, main)) return { commit, merge: null, main, changed: synced !== null, mainMoved, files: [] }
      if (!(await repo.isAncestor(main, commit))) {
        if (synced === main) {
          throw new BerthError('refused', `session ${row.name} did not merge ${ws.dir}'s main into ${ws.branch} as asked; nothing was saved`)
        }
        // DIR's main is not part of the branch: merge it into the session branch first.
        if (!opts.live) {
          throw new BerthError(
            'refused',
            `cannot save session ${row.name} while it is paused: ${ws.dir}'s main is not part of ${ws.branch} (it moved since the session started) and merging it would change files under its paused processes; resume it and save again`,
          )
        }
        mainMoved = true
        opts.stage('sync', `merging ${ws.dir}'s new main into ${ws.branch}`)
        await syncMain(repo, run, { ...env, BERTH_REF: refs.outgoing }, { commit, main, outgoing: refs.outgoing, row, ws, timeoutMs: limits.syncMs })
        synced = main
        continue
      }
      opts.stage('merge', `merging ${ws.branch} into main`)
      const merge = await mergeCommit(repo, main, commit, `Merge branch '${ws.branch}'${opts.message ? `\n\n${opts.message}` : ''}\n`, who.env)
      opts.stage('write', `writing main back to ${ws.dir}`)
      const files = await changedFiles(repo, main, commit)
      if ((await writeMain(repo, row.id, merge, main)) === 'moved') continue // someone moved DIR's main meanwhile: again
      await follow(repo, run, { ...env, BERTH_REF: refs.outgoing, BERTH_MERGE: merge, BERTH_SESSION: commit }, { commit, merge, outgoing: refs.outgoing, ws, timeoutMs: limits.followMs })
      return { commit, merge, main: merge, changed: true, mainMoved, files }
    }
    throw new BerthError('conflict', `save gave up: ${ws.dir}'s main kept moving while saving; try again`)
  } finally {
    await repo.setOwnRef(refs.incoming, null)
    await repo.setOwnRef(refs.outgoing, null)
  }
}

/** Sends DIR's main (what the session lacks of it) and has the session merge it into its branch. */
async function syncMain(
  repo: HostRepo,
  run: Run,
  env: Record<string, string>,
  at: { commit: string; main: string; outgoing: string; row: SessionRow; ws: WorkspaceInfo; timeoutMs: number },
): Promise<void> {
  const { ws } = at
  await repo.setOwnRef(at.outgoing, at.main)
  const bundle = await repo.run(['bundle', 'create', '-q', '-', '--end-of-options', at.outgoing, `^${oid(at.commit, 'the session commit')}`], { timeoutMs: 10 * 60_000 })
  if (bundle.code !== 0) throw new BerthError('git', `could not bundle ${ws.dir}'s main: ${oneSentence(bundle.stderr)}`)
  const synced = await run(SYNC_SCRIPT, { input: bundle.stdout, env, timeoutMs: at.timeoutMs, maxStdout: 256 << 10 })
  if (synced.code === EXIT_CONFLICT) {
    const conflicted = sessionLines(synced.stdout.toString())
    throw new BerthError(
      'conflict',
      `save refused: ${ws.dir}'s main moved since the session started and merging it into ${ws.branch} conflicts in ${conflicted.join(', ') || 'some files'}; nothing in ${ws.dir} was overwritten and ${ws.branch} keeps your work (resolve inside the session: git merge main, then save again)`,
      { files: conflicted, branch: ws.branch, main: at.main },
    )
  }
  if (synced.code !== 0) throw new BerthError('refused', `could not merge ${ws.dir}'s main into ${ws.branch}: ${sessionText(synced.stderr || `exit ${synced.code}`)}; nothing was saved`)
}

/** The --no-ff merge of the session's commit into main, made in DIR without touching a working tree. */
async function mergeCommit(repo: HostRepo, main: string, commit: string, message: string, identity: Record<string, string>): Promise<string> {
  // main is part of commit, so the merge's tree is the commit's own
  const tree = await repo.treeOf(commit)
  const made = await repo.run(['commit-tree', '-p', oid(main, 'main'), '-p', oid(commit, 'the session commit'), '-F', '-', '--end-of-options', tree], {
    input: Buffer.from(message),
    env: identity,
    maxStdout: 256,
    timeoutMs: 60_000,
  })
  if (made.code !== 0) throw new BerthError('git', `could not make the merge commit in ${repo.dir}: ${oneSentence(made.stderr)}`)
  const merge = oid(made.stdout.toString().trim(), 'the merge commit')
  // what is about to become main must build on the main it replaces, and hold the session's work
  if (!(await repo.isAncestor(main, merge)) || !(await repo.isAncestor(commit, merge))) {
    throw new BerthError('git', `the merge made in ${repo.dir} does not descend from its main; nothing was saved`)
  }
  return merge
}

/** The files the session changed, by git in DIR (names may hold any byte but NUL). */
async function changedFiles(repo: HostRepo, main: string, commit: string): Promise<string[]> {
  const r = await repo.run(['diff', '--name-only', '-z', '--no-renames', '--end-of-options', oid(main, 'main'), oid(commit, 'the session commit')], { timeoutMs: 5 * 60_000, maxStdout: 64 << 20 })
  if (r.code !== 0) return []
  return r.stdout.toString('utf8').split('\0').filter(Boolean).slice(0, MAX_FILES)
}

/**
 * Moves DIR's main from `expected` to `next` only if it is still `expected` (update-ref's
 * compare-and-swap, or a fast-forward of the checked-out main that git refuses when it would
 * overwrite local changes). `next` descends from `expected`: main only ever moves forward.
 */
async function writeMain(repo: HostRepo, sessionId: string, next: string, expected: string): Promise<'ok' | 'moved'> {
  oid(next, 'the new main')
  oid(expected, 'the expected main')
  if ((await dirMain(repo)) !== expected) return 'moved'
  if (!(await repo.isAncestor(expected, next))) throw new BerthError('git', `the new main does not descend from ${repo.dir}'s main; nothing was saved`)
  if (!(await repo.isBare()) && (await repo.headRef()) === 'refs/heads/main') {
    // main is checked out in DIR: fast-forward it with its working tree (git keeps local edits
    // it does not have to touch, and refuses rather than overwrite the ones it would).
    const ff = await repo.run(['merge', '--ff-only', '-q', '--end-of-options', next], { timeoutMs: 10 * 60_000, maxStdout: 1 << 20 })
    if (ff.code !== 0) {
      if ((await dirMain(repo)) !== expected) return 'moved'
      throw new BerthError(
        'refused',
        `save refused: ${repo.dir} has local changes that the saved work would overwrite (${oneSentence(ff.stderr)}); commit or stash them there and save again; nothing was overwritten`,
      )
    }
    return 'ok'
  }
  const cas = await repo.run(['update-ref', '-m', `berth save ${sessionId}`, '--end-of-options', 'refs/heads/main', next, expected], { timeoutMs: 60_000, maxStdout: 0 })
  if (cas.code !== 0) {
    if ((await dirMain(repo)) !== expected) return 'moved'
    throw new BerthError('git', `could not move ${repo.dir}'s main: ${oneSentence(cas.stderr)}`)
  }
  return 'ok'
}

/** The session's main becomes DIR's new main, and its branch moves to the merge. */
async function follow(repo: HostRepo, run: Run, env: Record<string, string>, at: { commit: string; merge: string; outgoing: string; ws: WorkspaceInfo; timeoutMs: number }): Promise<void> {
  await repo.setOwnRef(at.outgoing, at.merge)
  const bundle = await repo.run(['bundle', 'create', '-q', '-', '--end-of-options', at.outgoing, `^${oid(at.commit, 'the session commit')}`], { timeoutMs: 5 * 60_000 })
  if (bundle.code !== 0) throw new BerthError('git', `saved, but could not bundle the merge for the session: ${oneSentence(bundle.stderr)}`)
  const followed = await run(FOLLOW_SCRIPT, { input: bundle.stdout, env, timeoutMs: at.timeoutMs, maxStdout: 64 << 10 })
  if (followed.code !== 0) throw new BerthError('git', `saved, but could not move ${at.ws.branch} to the merge: ${sessionText(followed.stderr || `exit ${followed.code}`)}`)
}
