// Save against a hostile session: its git (a wrapper earlier on PATH, passing everything else to the
// real git) prints what an attacker chooses. Whatever it prints, the user's repository on the host
// keeps its refs and reflogs, no command it names runs on the host, and save says what went wrong
// in one sentence. The host's workspace is checked out on a feature branch, as a user's often is.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome } from '../support/berth'
import { gitRepo } from '../support/git-repo'
import { testHost } from '../support/testhost'
import type { BerthError } from '../../src/shared/errors'
import { LocalEngine } from '../../src/main/core/engines/local-engine'
import type { SessionRow } from '../../src/main/core/store/sessions-repo'
import { WorkspaceRunner } from '../../src/main/core/workspace/workspace-runner'
import { saveWorkspace, type SaveLimits } from '../../src/main/core/workspace/workspace-save'

const h = testHost()
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim()

/** Everything a save could damage in DIR: its refs, the reflogs of HEAD, main and feature, HEAD itself and its files. */
function hostState(dir: string) {
  return {
    refs: git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    head: git(dir, 'symbolic-ref', 'HEAD'),
    headLog: git(dir, 'reflog', 'show', '--format=%H %gs', 'HEAD'),
    mainLog: git(dir, 'reflog', 'show', '--format=%H %gs', 'refs/heads/main'),
    featureLog: git(dir, 'reflog', 'show', '--format=%H %gs', 'refs/heads/feature'),
    mainLogFile: readFileSync(join(dir, '.git', 'logs', 'refs', 'heads', 'main'), 'utf8'),
    status: git(dir, 'status', '--porcelain', '--untracked-files=all'),
  }
}

describe('save against a session whose git lies', () => {
  const berth = new BerthHome('save-hostile')
  const marker = `/tmp/berth-pwned-${randomBytes(6).toString('hex')}`
  let dir = ''
  let s: { id: string; name: string }

  /** Puts a git wrapper at /usr/local/bin/git in the session (BODY runs first, then the real git). */
  async function hostileGit(body: string): Promise<void> {
    const wrapper = `#!/bin/sh\n${body.replaceAll('MARKER', marker)}\nexec /usr/bin/git "$@"\n`
    const r = await berth.run(['exec', '-i', s.name, '--', 'sh', '-c', 'cat > /usr/local/bin/git && chmod 755 /usr/local/bin/git'], { input: wrapper })
    expect(r.code).toBe(0)
  }

  /** Runs `berth save` expecting a refusal: its one-sentence error. */
  async function refusedSave(): Promise<{ code: string; message: string }> {
    const r = await berth.run(['save', s.name, '--json'])
    expect(r.code).not.toBe(0)
    const err = JSON.parse(r.stdout).error as { code: string; message: string }
    expect(err.message).not.toContain('\n')
    expect(err.message.length).toBeLessThan(500)
    return err
  }

  beforeAll(async () => {
    dir = gitRepo({ 'app.txt': 'v1\n' })
    // the user works on a feature branch in DIR: main is not checked out
    git(dir, 'checkout', '-q', '-b', 'feature')
    s = await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'liar'])
    await berth.run(['exec', s.name, '--', 'sh', '-c', 'echo v2 > app.txt'])
  })

  afterAll(async () => {
    await berth.cleanup()
    rmSync(dir, { recursive: true, force: true })
    rmSync(marker, { force: true })
  })

  it('ignores the ids and options it prints (main=-d, commit=--upload-pack=...): DIR keeps its refs and reflogs', async () => {
    const before = hostState(dir)
    await hostileGit(`case "$1" in
  symbolic-ref) ;;
  rev-parse|commit-tree) echo -d; echo "--upload-pack=touch MARKER"; exit 0;;
  *) printf 'main=-d\\ncommit=--upload-pack=touch MARKER\\nmerge=-d\\n';;
esac`)
    const err = await refusedSave()
    expect(err.message).toContain('does not accept as a bundle')
    expect(err.message).toContain('nothing was saved')
    expect(hostState(dir)).toEqual(before)
    expect(existsSync(marker)).toBe(false)
  })

  it('refuses a 1 MB line, in its answers and in its bundle, without keeping it', async () => {
    const before = hostState(dir)
    await hostileGit(`head -c 1048576 /dev/zero | tr '\\0' x; head -c 1048576 /dev/zero | tr '\\0' y >&2`)
    const noisy = await refusedSave()
    expect(noisy.message).toContain('wrote more than 64.0 KiB where Berth expected a short answer')
    expect(hostState(dir)).toEqual(before)

    // only its bundle is a 1 MB line (every other answer is honest)
    await hostileGit(`if [ "$1" = bundle ]; then head -c 1048576 /dev/zero | tr '\\0' x; echo; exit 0; fi`)
    const fake = await refusedSave()
    expect(fake.message).toContain('does not accept as a bundle')
    expect(fake.message).not.toContain('xxxxxxxxxx')
    expect(hostState(dir)).toEqual(before)
  })

  it('refuses a branch that does not descend from main, and a session that claims a merge it did not make', async () => {
    const before = hostState(dir)
    await hostileGit(':')
    // the session's branch becomes a commit with no parent: it does not build on DIR's main
    const orphan = await berth.run(['exec', s.name, '--', 'sh', '-c', `git update-ref refs/heads/session/${s.id} $(git -c user.name=x -c user.email=x@x commit-tree -m orphan 'HEAD^{tree}') && git reset -q --hard`])
    expect(orphan.code).toBe(0)
    const unrelated = await refusedSave()
    expect(unrelated.message).toMatch(/could not merge .*'s main into session\/\w+: .*unrelated histories.*; nothing was saved/)
    expect(hostState(dir)).toEqual(before)

    // its git now answers every merge with success and does nothing
    await hostileGit(`if [ "$1" = merge ]; then exit 0; fi`)
    const lied = await refusedSave()
    expect(lied.message).toContain(`session liar did not merge ${dir}'s main into session/${s.id} as asked; nothing was saved`)
    expect(hostState(dir)).toEqual(before)
  })

  it('takes only the session branch from a bundle that carries other refs, then saves as usual', async () => {
    // back to honest work on top of main
    await hostileGit(':')
    const reset = await berth.run(['exec', s.name, '--', 'sh', '-c', `git reset -q --hard refs/heads/main && echo v3 > app.txt`])
    expect(reset.code).toBe(0)
    // the bundle also names main (an orphan commit), a tag and a branch of its own
    await hostileGit(`if [ "$1" = bundle ] && [ "$2" = create ]; then
  evil=$(/usr/bin/git -c user.name=x -c user.email=x@x commit-tree -m evil 'HEAD^{tree}')
  /usr/bin/git update-ref refs/heads/main "$evil"; /usr/bin/git update-ref refs/tags/evil "$evil"; /usr/bin/git update-ref refs/heads/evil "$evil"
  exec /usr/bin/git bundle create -q - refs/heads/main refs/tags/evil refs/heads/evil "refs/heads/$BERTH_BRANCH"
fi`)
    const before = hostState(dir)
    const r = await berth.json(['save', s.name, '--message', 'v3'])
    expect(r.merge).toBe(r.main)
    const after = hostState(dir)
    // main moved to the merge; nothing else in DIR changed
    const mainRef = (state: ReturnType<typeof hostState>) => state.refs.split('\n').filter((l) => !l.startsWith('refs/heads/main '))
    expect(mainRef(after)).toEqual(mainRef(before))
    expect(after.refs).toContain(`refs/heads/main ${r.main}`)
    expect(after.refs).not.toMatch(/evil/)
    expect(after.head).toBe('refs/heads/feature')
    expect(after.featureLog).toBe(before.featureLog)
    expect(after.headLog).toBe(before.headLog)
    expect(after.mainLog.split('\n')[0]).toBe(`${r.main} berth save ${s.id}`)
    expect(after.mainLog.split('\n').slice(1).join('\n')).toBe(before.mainLog)
    expect(after.status).toBe('')
    expect(git(dir, 'show', `${r.main}:app.txt`)).toBe('v3')
    expect(git(dir, 'rev-parse', `${r.main}^1`)).toBe(before.refs.match(/refs\/heads\/main (\w+)/)![1])
    expect(existsSync(marker)).toBe(false)
  })
})

describe('save against a session that hangs or floods', () => {
  const berth = new BerthHome('save-stall')
  const scratch = mkdtempSync(join(tmpdir(), 'berth-save-stall-'))
  const tmpBefore = process.env.TMPDIR
  let dir = ''
  let row: SessionRow
  let runner: WorkspaceRunner
  const engine = new LocalEngine('local', h.localSocket)

  beforeAll(async () => {
    dir = gitRepo({ 'app.txt': 'v1\n' })
    git(dir, 'checkout', '-q', '-b', 'feature')
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'staller'])
    row = { ...s, version: 0, idleAfterSeconds: null, options: {} } as SessionRow
    runner = new WorkspaceRunner(await berth.homeId())
    await berth.run(['exec', s.name, '--', 'sh', '-c', 'echo v2 > app.txt'])
    // the bundles save keeps on the host go here, so the test can see none is left behind
    process.env.TMPDIR = scratch
  })

  afterAll(async () => {
    process.env.TMPDIR = tmpBefore
    await engine.close()
    await berth.cleanup()
    rmSync(dir, { recursive: true, force: true })
    rmSync(scratch, { recursive: true, force: true })
  })

  /** Saves in-process with short limits and a git wrapper in the session; returns the error and how long it took. */
  async function stalledSave(wrapper: string, limits: Partial<SaveLimits>): Promise<{ error: BerthError; ms: number }> {
    const put = await berth.run(['exec', '-i', row.name, '--', 'sh', '-c', 'cat > /usr/local/bin/git && chmod 755 /usr/local/bin/git'], { input: `#!/bin/sh\n${wrapper}\nexec /usr/bin/git "$@"\n` })
    expect(put.code).toBe(0)
    const place = await runner.open(engine, row)
    const started = Date.now()
    try {
      await saveWorkspace({ row, ws: row.workspace!, run: place.run, live: true, stage: () => undefined, limits })
    } catch (e) {
      return { error: e as BerthError, ms: Date.now() - started }
    } finally {
      await place.close()
    }
    throw new Error('the save went through')
  }

  it('gives up on a commit that never ends, at its deadline', async () => {
    const before = hostState(dir)
    const { error, ms } = await stalledSave('if [ "$1" = add ]; then sleep 600; fi', { commitMs: 2_000 })
    expect(error.message).toBe('session staller did not finish its part of the work on /workspace within 2 s; Berth took nothing from it')
    expect(ms).toBeLessThan(10_000)
    expect(hostState(dir)).toEqual(before)
  })

  it('gives up on a bundle that never ends, at its deadline, and leaves no file behind', async () => {
    const before = hostState(dir)
    const { error, ms } = await stalledSave('if [ "$1" = bundle ]; then sleep 600; fi', { bundleMs: 3_000 })
    expect(error.message).toContain('did not finish its part of the work on /workspace within 3 s')
    expect(ms).toBeLessThan(12_000)
    expect(hostState(dir)).toEqual(before)
    expect(readdirSync(scratch)).toEqual([])
  })

  it('stops reading a bundle past its size limit, without holding it in memory', async () => {
    const before = hostState(dir)
    const rss = process.memoryUsage().rss
    const { error, ms } = await stalledSave('if [ "$1" = bundle ]; then exec cat /dev/zero; fi', { maxBundleBytes: 32 << 20 })
    expect(error.message).toBe('session staller wrote more than 32.0 MiB where Berth expected a bundle; Berth took nothing from it')
    expect(ms).toBeLessThan(30_000)
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 << 20)
    expect(hostState(dir)).toEqual(before)
    expect(readdirSync(scratch)).toEqual([])
  })
})
