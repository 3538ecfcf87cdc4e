// A developer's machine whose Docker engine is chosen with `docker context use`, as Docker Desktop,
// OrbStack and Colima set it up: Berth finds it the way the docker CLI does, and `berth doctor`
// says which engine it took and why; a broken context is one sentence.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, containersOf, localDocker, officeDocker } from '../support/berth'
import { testHost } from '../support/testhost'

const h = testHost()

/** A user's home with the docker CLI's files: config.json naming the current context, and the contexts' meta. */
function userHome(current: string | null, contexts: Record<string, string> = {}, config?: string): string {
  const home = mkdtempSync(join(tmpdir(), 'berth-user-'))
  const docker = join(home, '.docker')
  mkdirSync(docker, { recursive: true })
  writeFileSync(join(docker, 'config.json'), config ?? JSON.stringify({ auths: {}, ...(current ? { currentContext: current } : {}) }))
  for (const [name, host] of Object.entries(contexts)) {
    const dir = join(docker, 'contexts', 'meta', createHash('sha256').update(name).digest('hex'))
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ Name: name, Metadata: { Description: 'test' }, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }))
  }
  return home
}

/** What an app started from a launcher has: a HOME, and no DOCKER_HOST nor DOCKER_CONTEXT. */
const launcherEnv = (home: string) => ({ HOME: home, DOCKER_HOST: '', DOCKER_CONTEXT: '' })

describe('the local engine, found as the docker CLI finds it', () => {
  const homes: string[] = []
  const berths: BerthHome[] = []
  afterAll(async () => {
    for (const b of berths) await b.cleanup()
    for (const d of homes) rmSync(d, { recursive: true, force: true })
  })

  it("takes the docker context's endpoint as this machine's engine, and doctor says why", async () => {
    const home = userHome('office', { office: `unix://${h.officeSocket}` })
    homes.push(home)
    const berth = new BerthHome('ctx')
    berths.push(berth)
    const env = launcherEnv(home)

    const report = await berth.json(['doctor'], { env })
    const engine = report.checks.find((c: { id: string }) => c.id === 'engine')
    expect(engine).toMatchObject({ status: 'ok', facts: { socket: h.officeSocket, source: 'docker context' } })
    expect(engine.summary).toContain(`on ${h.officeSocket}: the docker context "office" (currentContext in ~/.docker/config.json): unix://${h.officeSocket}`)
    expect(report.checks.map((c: { id: string }) => c.id)).toEqual(['engine', 'memory-pause', 'gateway', 'previews', 'ssh-config', 'sleep-hook', 'servers'])
    for (const c of report.checks) expect(c.summary).not.toContain('\n')

    const s = await berth.json(['session', 'create', '--image', h.tinyImage, '--name', 'on-context'], { env })
    expect(s.server).toBe('local')
    const homeId = await berth.homeId()
    expect((await containersOf(officeDocker(), homeId)).map((c) => c.Labels['berth.session'])).toContain(s.id)
    expect(await containersOf(localDocker(), homeId)).toEqual([])

    // a shell whose DOCKER_HOST names another engine is told that the running core sees another
    const shell = await berth.run(['doctor'], { env: { HOME: home, DOCKER_HOST: `unix://${h.localSocket}` } })
    expect(shell.code).toBe(0)
    expect(shell.stdout).toMatch(new RegExp(`^warn +Docker engine .*this shell would use ${h.localSocket} \\(DOCKER_HOST is unix://${h.localSocket}\\)$`, 'm'))
    expect(shell.stdout).toContain('fix: The running core was started with another environment')

    await berth.json(['finish', 'on-context'], { env })
    expect(await containersOf(officeDocker(), homeId)).toEqual([])
  })

  it("says what this shell would use when Berth's core cannot start at all", async () => {
    const home = userHome('office', { office: `unix://${h.officeSocket}` })
    homes.push(home)
    const notAFolder = join(home, '.docker', 'config.json', 'berth')
    const berth = new BerthHome('nocore')
    berths.push(berth)
    const r = await berth.run(['doctor'], { env: { ...launcherEnv(home), BERTH_HOME: notAFolder } })
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/^Berth's core could not start: .*ENOTDIR.*\n/)
    expect(r.stdout).toContain(`engine this shell would use: ${h.officeSocket} (the docker context "office"`)
  })

  it('a context that does not exist, or a config.json that does not parse, is one sentence, not a stack', async () => {
    const gone = userHome('gone')
    const garbled = userHome(null, {}, '{"currentContext": "office",')
    homes.push(gone, garbled)
    for (const [home, sentence] of [
      [gone, /^the docker context "gone" \(currentContext in ~\/\.docker\/config\.json\) does not exist: there is no ~\/\.docker\/contexts\/meta\/[0-9a-f]{64}\/meta\.json; see docker context ls$/],
      [garbled, /^~\/\.docker\/config\.json is not valid JSON \(.+\); fix it, or set DOCKER_HOST$/],
    ] as const) {
      const berth = new BerthHome('badctx')
      berths.push(berth)
      const env = launcherEnv(home)
      const doctor = await berth.run(['doctor'], { env })
      expect(doctor.code).toBe(1)
      const line = doctor.stdout.split('\n').find((l) => l.startsWith('FAIL  Docker engine'))!
      expect(line.replace(/^FAIL +Docker engine +/, '')).toMatch(sentence)
      expect(doctor.stdout).toContain('fix: Berth reads the docker CLI')

      const create = await berth.run(['session', 'create', '--image', h.tinyImage], { env })
      expect(create.code).toBe(4)
      const lines = create.stderr.trim().split('\n').filter((l) => !/^(pulling|carrying|creating)/.test(l))
      expect(lines).toHaveLength(1)
      expect(lines[0]!.replace(/^berth: (server local is unreachable: )?/, '')).toMatch(sentence)
      expect(create.stderr).not.toMatch(/\n\s+at /)
    }
  })
})
