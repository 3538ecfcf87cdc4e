// A pause must hold whatever the session runs. The freeze watcher thaws a session for one reason
// only: a `docker exec` caught starting as the container froze (its runc init would hold the engine
// for good). Played as an attacker: a session names its own process `runc:[2:INIT]`, as runc names
// that init, hoping the watcher lets it run while the user thinks it paused. The watcher knows an
// exec's init by its parent (the `runc exec` the shim started), so the process stays frozen. (A
// frozen pause is where a thaw would matter: during a checkpoint CRIU holds the processes itself.)
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, sleep, until } from '../support/berth'
import { testHost } from '../support/testhost'

const NAME = 'runc:[2:INIT]'
// a loop that names itself as runc's init (its command name and its argv[0]) and writes the time
// of each turn into the session's workspace
const LOOP = `printf '%s' '${NAME}' > /proc/$$/comm; while :; do date +%s%3N >> /workspace/ticks; sleep 0.1; done`

describe('a session that names a process like an exec starting', () => {
  const berth = new BerthHome('pause-hostile')
  afterAll(() => berth.cleanup())

  async function ticksFile(id: string): Promise<string> {
    const vols = await localDocker().listVolumes({ filters: { label: [`berth.session=${id}`] } })
    const v = vols.Volumes?.[0]
    if (!v) throw new Error(`no workspace volume for ${id}`)
    return `${v.Mountpoint}/ticks`
  }
  const ticks = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(Number)

  async function startLoop(id: string): Promise<void> {
    const started = await berth.run(['exec', id, '--', 'bash', '-c', `(exec -a '${NAME}' bash -c "$0" </dev/null >/dev/null 2>&1 &); echo started`, LOOP])
    expect(started.stdout).toBe('started\n')
    // the session now runs a process that looks like runc's init by name
    await until(async () => (await berth.run(['exec', id, '--', 'sh', '-c', `cat /proc/[0-9]*/comm 2>/dev/null | grep -cxF '${NAME}'`])).stdout.trim() === '1', 'the named loop to run')
  }

  /** Pauses frozen and checks that the loop wrote nothing from well before the pause answered until the resume. */
  async function pauseHolds(id: string): Promise<void> {
    const file = await ticksFile(id)
    await until(() => ticks(file).length > 5, 'the loop to tick')
    const paused = await berth.json(['pause', id, '--wait'], { timeoutMs: 120_000 })
    const answered = Date.now()
    expect(paused).toMatchObject({ paused: true, mode: 'frozen' })
    // still paused a while later; the watcher watched at least 1.5 s after the freeze, so nothing
    // may have been written from then on
    await sleep(2500)
    const resumeAt = Date.now()
    const during = ticks(file).filter((t) => t > answered - 1200 && t < resumeAt)
    expect(during).toEqual([])
    // nor did the watcher say it thawed anything
    const events = JSON.stringify(await berth.json(['session', 'events', id]))
    expect(events).not.toContain('Berth let it start')
    expect(await berth.json(['resume', id])).toMatchObject({ resumed: true, mode: 'frozen' })
    // and it runs again once resumed: the same process goes on
    const n = ticks(file).length
    await until(() => ticks(file).length > n + 3, 'the loop to tick again after the resume')
  }

  it('stays frozen through a frozen pause, twice', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'named'])
    await startLoop(s.id)
    // no memory checkpoints: every pause freezes the session and keeps it frozen in place
    await berth.json(['server', 'checkpoint', 'local', 'off'])
    await pauseHolds(s.id)
    await pauseHolds(s.id)
    await berth.json(['finish', s.id])
  })
})
