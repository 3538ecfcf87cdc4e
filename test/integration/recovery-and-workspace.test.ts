// Work that starts in a repository, and a daemon that dies at the worst moment.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, containersOf, localDocker, until } from '../support/berth'
import { gitRepo } from '../support/git-repo'
import { testHost } from '../support/testhost'

const h = testHost()

describe('a session that starts from a git workspace', () => {
  const berth = new BerthHome('ws')
  const dirs: string[] = []
  afterAll(async () => {
    await berth.cleanup()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it("clones the workspace's main into /workspace on the branch session/<id>", async () => {
    const dir = gitRepo({ 'README.md': '# hello\n' })
    dirs.push(dir)
    const base = execFileSync('git', ['-C', dir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim()
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--workspace', dir])
    expect(s.workspace).toEqual({ dir, branch: `session/${s.id}`, base })
    const r = await berth.run(['exec', s.id, '--', 'sh', '-c', 'cat README.md; git branch --show-current; git log --format=%H -1; git remote'])
    expect(r).toMatchObject({ code: 0, stdout: `# hello\nsession/${s.id}\n${base}\n` })
  })

  it('refuses a folder that is not a git repository with a main branch, creating nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-notrepo-'))
    dirs.push(dir)
    const r = await berth.run(['session', 'create', '--image', h.baseImage, '--workspace', dir])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('is not a git repository with a main branch')
    const list = await berth.json(['session', 'ls'])
    expect(list).toHaveLength(1)
  })
})

describe('a daemon killed in the middle of a create', () => {
  const berth = new BerthHome('crash')
  const dirs: string[] = []
  afterAll(async () => {
    await berth.cleanup()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it('is reconciled on the next start: the session is failed with its reason and nothing is left on the engine', async () => {
    // a workspace big enough that the create takes a while
    const dir = gitRepo({ 'blob.bin': randomBytes(60 * 1024 * 1024) })
    dirs.push(dir)
    await berth.json(['session', 'ls'])
    const pid = berth.daemonPid()!
    const creating = berth.run(['session', 'create', '--image', h.baseImage, '--workspace', dir, '--name', 'doomed'])
    await until(async () => (await berth.json(['session', 'ls', '--state', 'creating'])).length === 1, 'the create to start', 60_000)
    process.kill(pid, 'SIGKILL')
    const r = await creating
    expect(r.code).not.toBe(0)

    // the next verb starts a new daemon, whose recovery pass runs right after its socket is up
    const s = await until(async () => {
      const [x] = await berth.json(['session', 'ls'])
      return x.state === 'creating' ? undefined : x
    }, 'the recovery pass')
    expect(s).toMatchObject({ name: 'doomed', state: 'failed' })
    expect(s.failure).toContain('Berth stopped while creating this session')
    const homeId = await berth.homeId()
    await until(async () => (await containersOf(localDocker(), homeId)).length === 0, 'the half-made container to be removed')
    const volumes = await localDocker().listVolumes({ filters: { label: [`berth.home=${homeId}`] } })
    expect(volumes.Volumes ?? []).toEqual([])
    expect(berth.daemonPid()).not.toBe(pid)
  })
})
