// Save: the only verb that moves work out of a session. Everything in /workspace is committed on the
// session branch, merged --no-ff into main, and main is written back to DIR with compare-and-swap:
// if DIR's main moved since the session's base, the new main is merged into the session branch
// first (a conflict is reported and nothing in DIR changes). Commits travel as git bundles through
// exec streams, so it works the same for a session on the laptop or on a connected server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { WorkspaceInfo } from '../../../shared/models'
import type { Engine } from '../engines/engine'
import type { SessionRow } from '../store/sessions-repo'
import { git } from './workspace-clone'
import type { ScriptResult } from './workspace-runner'

export type Run = (script: string, input?: Buffer, env?: Record<string, string>) => Promise<ScriptResult>

export interface SaveOutcome {
  commit: string
  merge: string | null
  main: string
  changed: boolean
  mainMoved: boolean
  files: string[]
}

const kv = (out: string): Record<string, string> =>
  Object.fromEntries(
    out
      .split('\n')
      .filter((l) => /^[a-z]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )

/** Git identity inside the session: its own config wins; else DIR's; else a Berth default. */
const IDENTITY = `git config user.name >/dev/null || export GIT_AUTHOR_NAME="$BERTH_GIT_NAME" GIT_COMMITTER_NAME="$BERTH_GIT_NAME"
git config user.email >/dev/null || export GIT_AUTHOR_EMAIL="$BERTH_GIT_EMAIL" GIT_COMMITTER_EMAIL="$BERTH_GIT_EMAIL"`

const COMMIT_SCRIPT = `set -e
cd /workspace
${IDENTITY}
head=$(git symbolic-ref -q HEAD || echo detached)
if [ "$head" != "refs/heads/$BERTH_BRANCH" ]; then echo "head=$head"; exit 10; fi
git add -A
if git diff --cached --quiet; then echo committed=0; else git commit -q -m "$BERTH_MSG"; echo committed=1; fi
echo "commit=$(git rev-parse HEAD)"
echo "main=$(git rev-parse -q --verify refs/heads/main || echo none)"
echo files:
git diff --name-only "refs/heads/main...HEAD" 2>/dev/null || true`

/** Brings DIR's main in (a bundle on stdin) and merges it into the session branch. */
const SYNC_SCRIPT = `set -e
cd /workspace
${IDENTITY}
T=$(mktemp /tmp/.berth-main.XXXXXX)
cat > "$T"
git fetch -q "$T" +refs/heads/main:refs/heads/main
rm -f "$T"
if git merge -q --no-edit -m "Merge main into $BERTH_BRANCH" refs/heads/main >/dev/null 2>&1; then
  echo "commit=$(git rev-parse HEAD)"
else
  echo conflict:
  git diff --name-only --diff-filter=U
  git merge --abort || git reset -q --merge
  exit 11
fi`

/** The --no-ff merge of the session branch into main, made without touching the working tree. */
const MERGE_SCRIPT = `set -e
cd /workspace
${IDENTITY}
S=$(git rev-parse "refs/heads/$BERTH_BRANCH")
M=$(git rev-parse refs/heads/main)
if git merge-base --is-ancestor "$S" "$M"; then echo merge=none; echo "main=$M"; exit 0; fi
git merge-base --is-ancestor "$M" "$S" || { echo "main is not part of $BERTH_BRANCH" >&2; exit 12; }
MERGE=$(git commit-tree "$S^{tree}" -p "$M" -p "$S" -m "$BERTH_MERGE_MSG")
git update-ref refs/heads/main "$MERGE" "$M"
echo "merge=$MERGE"
echo "main=$MERGE"`

/**
 * After a save the session branch moves to the merge (same tree, so no file changes): the session's
 * next work then builds on main, and the next save is again a plain --no-ff merge.
 */
const FOLLOW_SCRIPT = `set -e
cd /workspace
git update-ref "refs/heads/$BERTH_BRANCH" "$BERTH_MERGE" "$BERTH_SESSION"`

const BUNDLE_SCRIPT = `set -e
cd /workspace
git bundle create -q - refs/heads/main "^$BERTH_HAVE"`

async function gitIdentity(dir: string): Promise<{ name: string; email: string }> {
  const name = (await git(['-C', dir, 'config', 'user.name'])).stdout.toString().trim()
  const email = (await git(['-C', dir, 'config', 'user.email'])).stdout.toString().trim()
  return { name: name || 'Berth', email: email || 'berth@localhost' }
}

async function dirMain(dir: string): Promise<string> {
  const r = await git(['-C', dir, 'rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}'])
  if (r.code !== 0) throw new BerthError('refused', `the workspace ${dir} has no main branch any more; nothing was saved`)
  return r.stdout.toString().trim()
}

async function isAncestor(dir: string, a: string, b: string): Promise<boolean> {
  return (await git(['-C', dir, 'merge-base', '--is-ancestor', a, b])).code === 0
}

export async function saveWorkspace(opts: {
  row: SessionRow
  ws: WorkspaceInfo
  run: Run
  message?: string | undefined
  /** may the working tree change (merging a moved main)? not under a paused session's processes */
  live: boolean
  stage: (stage: string, message: string) => void
}): Promise<SaveOutcome> {
  const { row, ws, run } = opts
  const who = await gitIdentity(ws.dir)
  const env = {
    BERTH_BRANCH: ws.branch,
    BERTH_MSG: opts.message ?? `Work from Berth session ${row.name}`,
    BERTH_MERGE_MSG: `Merge branch '${ws.branch}'${opts.message ? `\n\n${opts.message}` : ''}`,
    BERTH_GIT_NAME: who.name,
    BERTH_GIT_EMAIL: who.email,
  }
  opts.stage('commit', `committing /workspace on ${ws.branch}`)
  const committed = await run(COMMIT_SCRIPT, undefined, env)
  const c = kv(committed.stdout.toString())
  if (committed.code === 10) {
    throw new BerthError('refused', `cannot save session ${row.name}: /workspace is on ${c.head ?? 'another branch'}, not ${ws.branch}; switch back to it first`)
  }
  if (committed.code !== 0) throw new BerthError('internal', `could not commit the workspace: ${oneSentence(committed.stderr || `exit ${committed.code}`)}`)
  let commit = c.commit!
  const files = committed.stdout.toString().split('\nfiles:\n')[1]?.split('\n').filter(Boolean) ?? []
  let changed = c.committed === '1'
  let mainMoved = false

  // The container's main mirrors DIR's main as of the session's last sync (the clone or a save).
  let containerMain = c.main!
  for (let attempt = 0; attempt < 4; attempt++) {
    const main = await dirMain(ws.dir)
    // Already saved: the session's work is in DIR's main, whatever DIR did since. Safe to repeat.
    if ((await hasCommit(ws.dir, commit)) && (await isAncestor(ws.dir, commit, main))) {
      return { commit, merge: null, main, changed, mainMoved, files }
    }
    if (main !== containerMain) {
      // DIR's main moved since the session's base: merge it into the session branch first.
      mainMoved = true
      if (!opts.live) {
        throw new BerthError(
          'refused',
          `cannot save session ${row.name} while it is paused: ${ws.dir}'s main moved and merging it would change files under its paused processes; resume it and save again`,
        )
      }
      opts.stage('sync', `merging ${ws.dir}'s new main into ${ws.branch}`)
      const have = (await hasCommit(ws.dir, containerMain)) && (await isAncestor(ws.dir, containerMain, main)) ? containerMain : null
      const bundle = await git(['-C', ws.dir, 'bundle', 'create', '-q', '-', 'refs/heads/main', ...(have ? [`^${have}`] : [])])
      if (bundle.code !== 0) throw new BerthError('internal', `could not bundle ${ws.dir}: ${oneSentence(bundle.stderr)}`)
      const synced = await run(SYNC_SCRIPT, bundle.stdout, env)
      if (synced.code === 11) {
        const conflicted = synced.stdout.toString().split('conflict:\n')[1]?.split('\n').filter(Boolean) ?? []
        throw new BerthError(
          'conflict',
          `save refused: ${ws.dir}'s main moved since the session started and merging it into ${ws.branch} conflicts in ${conflicted.join(', ') || 'some files'}; nothing in ${ws.dir} was overwritten and ${ws.branch} keeps your work (resolve inside the session: git merge main, then save again)`,
          { files: conflicted, branch: ws.branch, main },
        )
      }
      if (synced.code !== 0) throw new BerthError('internal', `could not merge the new main: ${oneSentence(synced.stderr || `exit ${synced.code}`)}`)
      commit = kv(synced.stdout.toString()).commit ?? commit
      containerMain = main
      changed = true
    }
    opts.stage('merge', `merging ${ws.branch} into main`)
    const merged = await run(MERGE_SCRIPT, undefined, env)
    if (merged.code !== 0) throw new BerthError('internal', `could not merge ${ws.branch} into main: ${oneSentence(merged.stderr || `exit ${merged.code}`)}`)
    const m = kv(merged.stdout.toString())
    const merge = m.merge === 'none' ? null : m.merge!
    const newMain = m.main!
    if (!merge) return { commit, merge: null, main, changed, mainMoved, files }
    opts.stage('write', `writing main back to ${ws.dir}`)
    const bundle = await run(BUNDLE_SCRIPT, undefined, { ...env, BERTH_HAVE: main })
    if (bundle.code !== 0) throw new BerthError('internal', `could not bundle the saved work: ${oneSentence(bundle.stderr || `exit ${bundle.code}`)}`)
    const wrote = await writeBack(ws.dir, row.id, bundle.stdout, newMain, main)
    if (wrote === 'moved') continue // someone moved DIR's main while we merged: merge again
    const followed = await run(FOLLOW_SCRIPT, undefined, { ...env, BERTH_MERGE: merge, BERTH_SESSION: commit })
    if (followed.code !== 0) throw new BerthError('internal', `saved, but could not move ${ws.branch} to the merge: ${oneSentence(followed.stderr || `exit ${followed.code}`)}`)
    return { commit, merge, main: newMain, changed: true, mainMoved, files }
  }
  throw new BerthError('conflict', `save gave up: ${ws.dir}'s main kept moving while saving; try again`)
}

async function hasCommit(dir: string, commit: string): Promise<boolean> {
  return (await git(['-C', dir, 'cat-file', '-e', `${commit}^{commit}`])).code === 0
}

/**
 * Fetches the bundle into DIR and moves main from `expected` to `next` only if it is still
 * `expected` (update-ref's compare-and-swap, or a fast-forward of the checked-out main that git
 * refuses when it would overwrite local changes).
 */
async function writeBack(dir: string, sessionId: string, bundle: Buffer, next: string, expected: string): Promise<'ok' | 'moved'> {
  const tmp = mkdtempSync(join(tmpdir(), 'berth-save-'))
  const file = join(tmp, 'save.bundle')
  const incoming = `refs/berth/incoming/${sessionId}`
  try {
    writeFileSync(file, bundle, { mode: 0o600 })
    const fetched = await git(['-C', dir, 'fetch', '-q', file, `+refs/heads/main:${incoming}`])
    if (fetched.code !== 0) throw new BerthError('internal', `could not bring the saved work into ${dir}: ${oneSentence(fetched.stderr)}`)
    if ((await dirMain(dir)) !== expected) return 'moved'
    const bare = (await git(['-C', dir, 'rev-parse', '--is-bare-repository'])).stdout.toString().trim() === 'true'
    const head = (await git(['-C', dir, 'symbolic-ref', '-q', 'HEAD'])).stdout.toString().trim()
    if (!bare && head === 'refs/heads/main') {
      // main is checked out in DIR: fast-forward it with its working tree (git keeps local edits
      // it does not have to touch, and refuses rather than overwrite the ones it would).
      const ff = await git(['-C', dir, 'merge', '--ff-only', '-q', next])
      if (ff.code !== 0) {
        if ((await dirMain(dir)) !== expected) return 'moved'
        throw new BerthError(
          'refused',
          `save refused: ${dir} has local changes that the saved work would overwrite (${oneSentence(ff.stderr)}); commit or stash them there and save again; nothing was overwritten`,
        )
      }
      return 'ok'
    }
    const cas = await git(['-C', dir, 'update-ref', '-m', `berth save ${sessionId}`, 'refs/heads/main', next, expected])
    if (cas.code !== 0) {
      if ((await dirMain(dir)) !== expected) return 'moved'
      throw new BerthError('internal', `could not move ${dir}'s main: ${oneSentence(cas.stderr)}`)
    }
    return 'ok'
  } finally {
    await git(['-C', dir, 'update-ref', '-d', incoming])
    rmSync(tmp, { recursive: true, force: true })
  }
}

export const STATUS_SCRIPT = `cd /workspace || exit 3
echo "head=$(git symbolic-ref -q --short HEAD || echo detached)"
echo changes:
git status --porcelain=v1 --untracked-files=all
echo commits:
git log --branches --not refs/heads/main --format='%h %s' --
echo end:`

export interface StatusOutcome {
  changes: string[]
  unsavedCommits: string[]
}

export function parseStatus(out: string): StatusOutcome {
  const between = (a: string, b: string) => out.split(`${a}\n`)[1]?.split(`${b}\n`)[0]?.split('\n').filter(Boolean) ?? []
  return { changes: between('changes:', 'commits:'), unsavedCommits: between('commits:', 'end:') }
}

export type { Engine }
