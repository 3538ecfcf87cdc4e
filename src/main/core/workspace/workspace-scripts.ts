// The shell that save and status run next to /workspace, inside the session (or a helper that mounts
// its volume). Values travel in the environment, never spliced into the text. The host reads back
// only exit codes, bundles (which git on the host verifies) and text for messages; no id, ref or
// argument a script prints ever reaches a command on the host.

/** Git identity inside the session: its own config wins; else DIR's; else a Berth default. */
const IDENTITY = `git config user.name >/dev/null || export GIT_AUTHOR_NAME="$BERTH_GIT_NAME" GIT_COMMITTER_NAME="$BERTH_GIT_NAME"
git config user.email >/dev/null || export GIT_AUTHOR_EMAIL="$BERTH_GIT_EMAIL" GIT_COMMITTER_EMAIL="$BERTH_GIT_EMAIL"`

export const EXIT_OTHER_BRANCH = 10
export const EXIT_CONFLICT = 11

/** Commits everything in /workspace on the session branch (exit 10, printing HEAD, when elsewhere). */
export const COMMIT_SCRIPT = `set -e
cd /workspace
${IDENTITY}
head=$(git symbolic-ref -q HEAD || echo detached)
if [ "$head" != "refs/heads/$BERTH_BRANCH" ]; then printf '%s\\n' "$head"; exit ${EXIT_OTHER_BRANCH}; fi
git add -A
git diff --cached --quiet || git commit -q -m "$BERTH_MSG"`

/**
 * Writes a bundle of the session branch to stdout, leaving out what the host already has
 * ($BERTH_HAVES: ids the host checked). When the host has the tip itself, the bundle holds just
 * that commit (git refuses an empty bundle, and the host still needs to learn the tip from git).
 */
export const BUNDLE_SCRIPT = `set -e
cd /workspace
tip=$(git rev-parse --verify -q "refs/heads/$BERTH_BRANCH^{commit}")
set --
for h in $BERTH_HAVES; do
  if git cat-file -e "$h^{commit}" 2>/dev/null; then set -- "$@" "^$h"; fi
done
if [ -z "$(git rev-list -n 1 "$tip" "$@")" ]; then
  set --
  for p in $(git rev-parse "$tip^@"); do set -- "$@" "^$p"; done
fi
git bundle create -q - "refs/heads/$BERTH_BRANCH" "$@"`

/** Brings DIR's main in (a bundle on stdin naming $BERTH_REF) and merges it into the session branch. */
export const SYNC_SCRIPT = `set -e
cd /workspace
${IDENTITY}
T=$(mktemp /tmp/.berth-main.XXXXXX)
cat > "$T"
git fetch -q --no-tags "$T" "+$BERTH_REF:refs/heads/main"
rm -f "$T"
if said=$(git merge -q --no-edit -m "Merge main into $BERTH_BRANCH" refs/heads/main 2>&1); then exit 0; fi
if [ -z "$(git diff --name-only --diff-filter=U)" ]; then git merge --abort 2>/dev/null || true; printf '%s\n' "$said" >&2; exit 1; fi
git diff --name-only --diff-filter=U
git merge --abort || git reset -q --merge
exit ${EXIT_CONFLICT}`

/**
 * After a save: main in the session becomes DIR's new main (a bundle naming $BERTH_REF), and the
 * session branch moves to the merge (same tree, so no file changes), so the session's next work
 * builds on main and the next save is again a plain --no-ff merge.
 */
export const FOLLOW_SCRIPT = `set -e
cd /workspace
T=$(mktemp /tmp/.berth-main.XXXXXX)
cat > "$T"
git fetch -q --no-tags "$T" "+$BERTH_REF:refs/heads/main"
rm -f "$T"
git update-ref "refs/heads/$BERTH_BRANCH" "$BERTH_MERGE" "$BERTH_SESSION"`

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

/** Text a session printed, fit for a message: printable, one line, short. */
export function sessionText(s: string, max = 200): string {
  const clean = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ').replace(/\s+/g, ' ').trim()
  return clean.length > max ? `${clean.slice(0, max)}...` : clean
}

/** Lines a session printed (file names), each made fit for a message, at most `count` of them. */
export function sessionLines(out: string, count = 20): string[] {
  return out
    .split('\n')
    .slice(0, count)
    .map((l) => sessionText(l))
    .filter(Boolean)
}
