// A user's repository on the laptop, for sessions that start from a git workspace.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A repository whose main holds FILES in one commit; `bare`: a bare clone of it (one nobody works in). */
export function gitRepo(files: Record<string, string | Buffer>, opts: { bare?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'berth-repo-'))
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  git('config', 'user.email', 'dev@example.com')
  git('config', 'user.name', 'Dev')
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  git('add', '.')
  git('commit', '-qm', 'first')
  if (!opts.bare) return dir
  const bare = mkdtempSync(join(tmpdir(), 'berth-repo-bare-'))
  execFileSync('git', ['clone', '-q', '--bare', dir, bare])
  rmSync(dir, { recursive: true, force: true })
  return bare
}
