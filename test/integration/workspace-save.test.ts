// Save: the only verb that moves work out of a session, into the user's repository, safely.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome } from '../support/berth'
import { gitRepo } from '../support/git-repo'
import { testHost } from '../support/testhost'

const h = testHost()

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim()

/** Commits a change on DIR's main behind the session's back (a teammate, another session). */
function commitInDir(dir: string, file: string, content: string, message: string): string {
  writeFileSync(join(dir, file), content)
  git(dir, 'add', file)
  git(dir, 'commit', '-qm', message)
  return git(dir, 'rev-parse', 'main')
}

describe('saving a session into its workspace', () => {
  const berth = new BerthHome('save')
  const dirs: string[] = []
  afterAll(async () => {
    await berth.cleanup()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it('commits on session/<id>, merges it --no-ff into main and writes main back to DIR; saving again changes nothing', async () => {
    const dir = gitRepo({ 'README.md': '# app\n', 'app.txt': 'v1\n' })
    dirs.push(dir)
    const base = git(dir, 'rev-parse', 'main')
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'saver'])
    await berth.run(['exec', 'saver', '--', 'sh', '-c', 'echo v2 > app.txt && echo new > added.txt'])
    const st = await berth.json(['workspace', 'status', 'saver'])
    expect(st.saved).toBe(false)
    expect(st.changes.sort()).toEqual([' M app.txt', '?? added.txt'])

    const r = await berth.json(['save', 'saver', '--message', 'Bump app to v2'])
    expect(r).toMatchObject({ dir, branch: `session/${s.id}`, changed: true, mainMoved: false })
    expect(r.merge).toBe(r.main)
    expect(r.files.sort()).toEqual(['added.txt', 'app.txt'])
    // DIR's main now has the merge commit, visible with git log --merges, and its working tree follows
    expect(git(dir, 'rev-parse', 'main')).toBe(r.main)
    const merges = git(dir, 'log', '--merges', '--format=%H %P%n%s', 'main')
    expect(merges.split('\n')[0]).toBe(`${r.main} ${base} ${r.commit}`)
    expect(merges).toContain(`Merge branch 'session/${s.id}'`)
    expect(git(dir, 'log', '--format=%s', '-1', r.commit)).toBe('Bump app to v2')
    expect(git(dir, 'log', '--format=%an <%ae>', '-1', r.commit)).toBe('Dev <dev@example.com>')
    expect(readFileSync(join(dir, 'app.txt'), 'utf8')).toBe('v2\n')
    expect(git(dir, 'status', '--porcelain')).toBe('')
    expect((await berth.json(['workspace', 'status', 'saver'])).saved).toBe(true)

    // safe to repeat
    const again = await berth.json(['save', 'saver'])
    expect(again).toMatchObject({ merge: null, changed: false, main: r.main })
    expect(git(dir, 'rev-parse', 'main')).toBe(r.main)
    expect(git(dir, 'rev-list', '--count', '--merges', 'main')).toBe('1')

    // a second round of work is a second merge
    await berth.run(['exec', 'saver', '--', 'sh', '-c', 'echo v3 > app.txt'])
    const third = await berth.json(['save', 'saver'])
    expect(third.changed).toBe(true)
    expect(git(dir, 'rev-list', '--count', '--merges', 'main')).toBe('2')
    expect(readFileSync(join(dir, 'app.txt'), 'utf8')).toBe('v3\n')
  })

  it('merges the new main into the session branch first when DIR moved meanwhile (both changes present)', async () => {
    const dir = gitRepo({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' }, { bare: true })
    dirs.push(dir)
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'mover'])
    await berth.run(['exec', 'mover', '--', 'sh', '-c', 'echo a2 > a.txt'])
    // someone else moves DIR's main (a bare repository: updated with a clone and a push)
    const other = mkdtempSync(join(tmpdir(), 'berth-save-other-'))
    dirs.push(other)
    execFileSync('git', ['clone', '-q', dir, other])
    git(other, 'config', 'user.email', 'mate@example.com')
    git(other, 'config', 'user.name', 'Mate')
    const moved = commitInDir(other, 'b.txt', 'b2\n', 'teammate change')
    git(other, 'push', '-q', 'origin', 'main')

    const r = await berth.json(['save', 'mover'])
    expect(r.mainMoved).toBe(true)
    expect(git(dir, 'rev-parse', 'main')).toBe(r.main)
    expect(git(dir, 'merge-base', '--is-ancestor', moved, r.main)).toBe('')
    expect(git(dir, 'show', `${r.main}:a.txt`)).toBe('a2')
    expect(git(dir, 'show', `${r.main}:b.txt`)).toBe('b2')
    // the session sees the teammate's change too
    const inside = await berth.run(['exec', 'mover', '--', 'cat', 'a.txt', 'b.txt'])
    expect(inside.stdout).toBe('a2\nb2\n')
    expect(git(dir, 'log', '--merges', '--format=%s', '-1', 'main')).toBe(`Merge branch 'session/${s.id}'`)
  })

  it('refuses a real conflict clearly: nothing in DIR is overwritten and the session branch keeps the work', async () => {
    const dir = gitRepo({ 'c.txt': 'start\n' })
    dirs.push(dir)
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'clash'])
    await berth.run(['exec', 'clash', '--', 'sh', '-c', 'echo session-side > c.txt'])
    const theirs = commitInDir(dir, 'c.txt', 'dir-side\n', 'conflicting change')

    const r = await berth.run(['save', 'clash', '--json'])
    expect(r.code).toBe(1)
    const err = JSON.parse(r.stdout).error
    expect(err.code).toBe('conflict')
    expect(err.message).toContain('conflicts in c.txt')
    expect(err.message).toContain(`session/${s.id} keeps your work`)
    expect(git(dir, 'rev-parse', 'main')).toBe(theirs)
    expect(readFileSync(join(dir, 'c.txt'), 'utf8')).toBe('dir-side\n')
    const inside = await berth.run(['exec', 'clash', '--', 'sh', '-c', `git branch --show-current; git status --porcelain; git show session/${s.id}:c.txt; cat c.txt`])
    expect(inside.stdout).toBe(`session/${s.id}\nsession-side\nsession-side\n`)
  })

  it('finish refuses a session with unsaved work and lists it, unless --force', async () => {
    const dir = gitRepo({ 'keep.txt': 'one\n' })
    dirs.push(dir)
    await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'careful'])
    await berth.run(['exec', 'careful', '--', 'sh', '-c', 'echo two > keep.txt; echo x > fresh.txt'])
    const refused = await berth.run(['finish', 'careful'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('session careful has unsaved work: 2 changed files (keep.txt, fresh.txt)')
    expect(refused.stderr).toContain('berth save careful')
    expect((await berth.json(['session', 'show', 'careful'])).state).toBe('running')

    // a commit made inside the session but never saved counts too
    await berth.run(['exec', 'careful', '--', 'sh', '-c', 'git add -A && git -c user.name=x -c user.email=x@x commit -qm inside'])
    const stillRefused = await berth.run(['finish', 'careful', '--json'])
    expect(stillRefused.code).toBe(1)
    expect(JSON.parse(stillRefused.stdout).error.message).toContain('1 commit not in')

    await berth.json(['save', 'careful'])
    const done = await berth.json(['finish', 'careful'])
    expect(done.state).toBe('finished')
    expect(readFileSync(join(dir, 'fresh.txt'), 'utf8')).toBe('x\n')

    await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'reckless'])
    await berth.run(['exec', 'reckless', '--', 'sh', '-c', 'echo lost > gone.txt'])
    expect((await berth.run(['finish', 'reckless'])).code).toBe(1)
    const forced = await berth.json(['finish', 'reckless', '--force'])
    expect(forced.state).toBe('finished')
  })

  it('saves a session on the office server the same way, its moved main included', async () => {
    await berth.addOffice()
    const dir = gitRepo({ 'a.txt': 'a1\n', 'b.txt': 'b1\n' })
    dirs.push(dir)
    const base = git(dir, 'rev-parse', 'main')
    const s = await berth.json(['session', 'create', '--server', 'office', '--image', h.baseImage, '--workspace', dir, '--name', 'remote-saver'], { timeoutMs: 180_000 })
    expect(s.server).toBe('office')
    await berth.run(['exec', 'remote-saver', '--', 'sh', '-c', 'echo a2 > a.txt'])
    const first = await berth.json(['save', 'remote-saver'])
    expect(first).toMatchObject({ changed: true, mainMoved: false, files: ['a.txt'] })
    expect(git(dir, 'log', '--format=%P', '-1', 'main')).toBe(`${base} ${first.commit}`)
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a2\n')

    const moved = commitInDir(dir, 'b.txt', 'b2\n', 'change on the laptop')
    await berth.run(['exec', 'remote-saver', '--', 'sh', '-c', 'echo a3 > a.txt'])
    const second = await berth.json(['save', 'remote-saver'])
    expect(second).toMatchObject({ changed: true, mainMoved: true, files: ['a.txt'] })
    expect(git(dir, 'merge-base', '--is-ancestor', moved, second.main)).toBe('')
    expect(git(dir, 'show', `${second.main}:a.txt`)).toBe('a3')
    expect(git(dir, 'show', `${second.main}:b.txt`)).toBe('b2')
    expect((await berth.run(['exec', 'remote-saver', '--', 'cat', 'b.txt'])).stdout).toBe('b2\n')
    expect((await berth.json(['workspace', 'status', 'remote-saver'])).saved).toBe(true)
  })

  it('saves a paused session through a helper, and refuses to merge a moved main under its paused processes', async () => {
    const dir = gitRepo({ 'p.txt': 'p1\n' })
    dirs.push(dir)
    await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'sleeper'])
    await berth.run(['exec', 'sleeper', '--', 'sh', '-c', 'echo p2 > p.txt'])
    await berth.json(['pause', 'sleeper', '--no-memory', '--wait'], { timeoutMs: 180_000 })
    const saved = await berth.json(['save', 'sleeper'])
    expect(saved.changed).toBe(true)
    expect(readFileSync(join(dir, 'p.txt'), 'utf8')).toBe('p2\n')

    const theirs = commitInDir(dir, 'q.txt', 'q\n', 'meanwhile')
    await berth.json(['resume', 'sleeper'], { timeoutMs: 180_000 })
    await berth.run(['exec', 'sleeper', '--', 'sh', '-c', 'echo p3 > p.txt'])
    await berth.json(['pause', 'sleeper', '--no-memory', '--wait'], { timeoutMs: 180_000 })
    const refused = await berth.run(['save', 'sleeper', '--json'])
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stdout).error.message).toContain('cannot save session sleeper while it is paused')
    expect(git(dir, 'rev-parse', 'main')).toBe(theirs)
  })

  it('answers sessions without a workspace and unknown sessions clearly', async () => {
    await berth.json(['session', 'create', '--image', h.tinyImage, '--name', 'plain'])
    const r = await berth.run(['save', 'plain'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('has no workspace folder')
    expect((await berth.run(['save', 'nope'])).code).toBe(3)
    // a session without a workspace finishes without asking (there is nowhere to save to)
    expect((await berth.json(['finish', 'plain'])).state).toBe('finished')
  })
})
