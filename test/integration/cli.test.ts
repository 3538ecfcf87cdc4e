// The command line explains itself: every verb answers --help with its flags, `berth help TOPIC`
// works, and the shells complete verbs, flags and the names the running core knows.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { allOptions } from '../../src/cli/command'
import { commands } from '../../src/cli/commands'
import { BerthHome, BIN } from '../support/berth'
import { testHost } from '../support/testhost'

const run = promisify(execFile)

/** A folder with `berth` in it, for the shells' PATH. */
function pathWithBerth(): string {
  const dir = mkdtempSync(join(tmpdir(), 'berth-path-'))
  symlinkSync(BIN, join(dir, 'berth'))
  return dir
}

async function inBatches<T>(items: T[], size: number, f: (t: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(f))
}

describe('help', () => {
  const berth = new BerthHome('cli-help')
  afterAll(() => berth.cleanup())

  it('every registered verb answers --help and berth help, exit 0, listing each of its flags and arguments, without starting a daemon', async () => {
    expect(commands.length).toBeGreaterThan(40)
    await inBatches(commands, 6, async (cmd) => {
      const verb = cmd.path.join(' ')
      const viaFlag = await berth.run([...cmd.path, '--help'])
      expect(viaFlag.code, `berth ${verb} --help: ${viaFlag.stderr}`).toBe(0)
      expect(viaFlag.stdout.endsWith('\n'), `berth ${verb} --help ends with a newline`).toBe(true)
      expect(viaFlag.stdout).toContain(`usage: berth ${verb}`)
      expect(viaFlag.stdout).toContain(cmd.summary)
      for (const [name, o] of Object.entries(allOptions(cmd))) {
        const flagLine = viaFlag.stdout.split('\n').find((l) => l.includes(`--${name}`) && l.includes(o.help))
        expect(flagLine, `berth ${verb} --help lists --${name} with its help on one line`).toBeDefined()
      }
      for (const a of cmd.args ?? []) expect(viaFlag.stdout, `berth ${verb} --help names ${a.name}`).toContain(a.name)
      const documented = (cmd.args ?? []).some((a) => a.name.endsWith('...')) ? Infinity : (cmd.args ?? []).length
      expect(documented, `berth ${verb} documents each positional argument`).toBeGreaterThanOrEqual(cmd.positionals[1])
      const viaHelp = await berth.run(['help', ...cmd.path])
      expect(viaHelp.code, `berth help ${verb}`).toBe(0)
      expect(viaHelp.stdout).toContain(`usage: berth ${verb}`)
    })
    expect(berth.daemonPid()).toBeUndefined()
  })

  it('answers for a group and a first word, and lists everything grouped', async () => {
    const top = await berth.run(['--help'])
    expect(top.code).toBe(0)
    for (const g of ['sessions', 'pause and resume', 'snapshots', 'servers', 'routes', 'power', 'settings']) expect(top.stdout).toMatch(new RegExp(`^${g}.*:$`, 'm'))
    const session = await berth.run(['session', '--help'])
    expect(session).toMatchObject({ code: 0 })
    expect(session.stdout).toMatch(/^ {2}session create +create a session/m)
    const pause = await berth.run(['help', 'pause'])
    expect(pause.code).toBe(0)
    expect(pause.stdout).toContain('--no-memory')
    expect(pause.stdout).toMatch(/^ {2}resume +/m)
    const servers = await berth.run(['help', 'servers'])
    expect(servers.stdout).toMatch(/^ {2}server add +/m)
    const unknown = await berth.run(['help', 'nothing-like-this'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('no help on nothing-like-this')
    const wrongVerb = await berth.run(['session', 'nope'])
    expect(wrongVerb.code).toBe(2)
    expect(wrongVerb.stderr).toContain('unknown session verb: nope')
  })
})

describe('completion and listings', () => {
  const berth = new BerthHome('cli-complete')
  const path = pathWithBerth()
  afterAll(async () => {
    await berth.cleanup()
    rmSync(path, { recursive: true, force: true })
  })
  const env = () => ({ ...berth.env(), PATH: `${path}:${process.env.PATH}` })

  const bash = async (line: string[]) => {
    const words = line.map((w) => `'${w}'`).join(' ')
    const script = `source <(berth completion bash); COMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}; _berth; printf '%s\\n' "\${COMPREPLY[@]}"`
    return (await run('bash', ['-c', script], { env: env(), timeout: 10_000 })).stdout.split('\n').filter(Boolean)
  }
  const fish = async (line: string) =>
    (await run('fish', ['--no-config', '-c', `berth completion fish | source; complete -C '${line}'`], { env: env(), timeout: 10_000 })).stdout
      .split('\n')
      .map((l) => l.split('\t')[0]!)
      .filter(Boolean)
  // zsh's completion system runs only at a prompt: the widgets it calls are stood in for, the script itself is zsh's
  const zsh = async (line: string[]) => {
    const words = line.map((w) => `'${w}'`).join(' ')
    const script = `compadd() { shift 2; print -l -- "$@" }; _files() { print -- '(files)' }; source <(berth completion zsh); words=(${words}); CURRENT=${line.length}; _berth`
    return (await run('zsh', ['-f', '-c', script], { env: env(), timeout: 10_000 })).stdout.split('\n').filter(Boolean)
  }

  it('completes verbs and flags with no Berth running, quickly, and starts none', async () => {
    const t0 = Date.now()
    expect(await bash(['berth', 'sess'])).toEqual(['session'])
    expect(await bash(['berth', 'pause', '--no'])).toEqual(['--no-memory'])
    expect(await bash(['berth', 'exec', ''])).toEqual(['--interactive', '--tty', '--detach', '--json', '--help'])
    expect(await fish('berth session ')).toEqual(expect.arrayContaining(['create', 'ls', 'show']))
    expect(await zsh(['berth', 'snapshot', ''])).toEqual(['create', 'ls', 'show', 'rm', 'test', 'timeline', 'diff'])
    expect(await zsh(['berth', 'session', 'create', '--workspace', ''])).toEqual(['(files)'])
    expect(Date.now() - t0).toBeLessThan(15_000)
    expect(berth.daemonPid()).toBeUndefined()
    expect(existsSync(join(berth.home, 'control.sock'))).toBe(false)
  })

  it('completes session and server names from the running core, and -q lists ids only', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage, '--name', 'comp-otter'])
    expect(await bash(['berth', 'pause', 'comp'])).toEqual(['comp-otter'])
    expect(await bash(['berth', 'resume', 'comp-otter', '--on', ''])).toEqual(['local'])
    expect(await fish('berth exec comp')).toEqual(['comp-otter'])
    expect(await zsh(['berth', 'server', 'test', ''])).toEqual(['local'])

    const ids = await berth.run(['session', 'ls', '-q'])
    expect(ids).toMatchObject({ code: 0, stdout: `${s.id}\n` })
    expect((await berth.run(['server', 'ls', '--quiet'])).stdout).toBe('local\n')
    const notAListing = await berth.run(['session', 'show', s.id, '-q'])
    expect(notAListing.code).toBe(2)

    const shown = await berth.run(['session', 'show', 'comp-otter'])
    expect(shown.stdout).toMatch(/^created: +(just now|\d+ s ago) \(\d{4}-\d\d-\d\d \d\d:\d\d\)$/m)
    const listed = await berth.run(['session', 'ls'])
    expect(listed.stdout).toMatch(/comp-otter .* (just now|\d+ s ago)$/m)
    const exact = await berth.json(['session', 'show', 'comp-otter'])
    expect(exact.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    await berth.json(['finish', 'comp-otter'])
  })
})
