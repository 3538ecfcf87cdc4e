import { describe, expect, it } from 'vitest'
import type { EngineFacts } from '../engines/engine'
import type { EngineRegistry } from '../engines/engine-registry'
import type { ServerRunner } from '../engines/server-script/server-runner'
import { Checkpoints, type ProbeStore } from './checkpoints'
import { SERVER_SCRIPT } from '../engines/server-script/server-script'
import { PROBE_DUMP_LIMIT_S, PROBE_RESTORE_S, readProbe, refineRate, type ProbeRecord } from './criu-probe'

/** The probe's "key value" lines as the server script prints them. */
const lines = (text: string): Map<string, string[]> => {
  const m = new Map<string, string[]>()
  for (const l of text.trim().split('\n')) {
    const sp = l.indexOf(' ')
    const [k, v] = sp < 0 ? [l, ''] : [l.slice(0, sp), l.slice(sp + 1)]
    m.set(k, [...(m.get(k) ?? []), v])
  }
  return m
}

const WORKS = `
root yes
criu /usr/sbin/criu
fault none
criu-version 4.1
uffd yes
dirty-track yes
dump ok 900 67108864
restore ok 400
diagnose plain ok
diagnose fault130 ok`

describe('what the memory-pause probe tells a user', () => {
  it('a working CRIU: available, how, a rate from the test dump, and what was tested', () => {
    const r = readProbe('office', 'fast', lines(WORKS))
    expect(r).toMatchObject({ available: true, how: 'fast' })
    // 64 MiB in 900 ms, less the fixed cost of a dump through ctr (600 ms)
    expect(r.dumpMiBps).toBeCloseTo(64 / 0.3, 0)
    expect(r.note).toBe("memory pauses work on office: CRIU through containerd's own client (CRIU 4.1) dumped a 64 MiB test in 900 ms and Docker restored it")
    expect(r.criu).toMatchObject({ path: '/usr/sbin/criu', version: '4.1', fault: null, uffd: true, dirtyTrack: true })
  })

  it("a CRIU that may not read another user's resource limits: memory for sessions run as root only, and the note says so", () => {
    const r = readProbe('office', 'fast', lines(`${WORKS}\ndiagnose other-user rlimit`))
    expect(r).toMatchObject({ available: true, how: 'fast', rootOnly: true })
    expect(r.note).toContain("but only for sessions whose processes all run as root: CRIU lacks the CAP_SYS_RESOURCE capability on office, so it cannot save another user's processes (such a session pauses on disk)")
    expect(readProbe('office', 'fast', lines(`${WORKS}\ndiagnose other-user ok`)).rootOnly).toBeUndefined()
  })

  it('no CRIU on the server: one sentence that names the fix', () => {
    const r = readProbe('office', 'fast', lines('root yes\ncriu none\ndump fail runc: criu not found'))
    expect(r).toMatchObject({ available: false, how: 'none', dumpMiBps: null })
    expect(r.note).toBe("CRIU is not installed on office (Docker's runc finds no criu on its PATH): pauses there freeze instead; install criu, then run `berth server test office`")
  })

  it('hardware breakpoints that never fire: a plain dump hangs, CRIU_FAULT=130 works; the note tells where to set it', () => {
    // the retry: the same CRIU, dumping a host process with CRIU_FAULT=130, finished where the plain one hung
    const f = lines(`root yes\ncriu /usr/sbin/criu\nfault none\ncriu-version 4.1\ndump late ${PROBE_DUMP_LIMIT_S * 1000 + 40}\ndiagnose plain late\ndiagnose fault130 ok`)
    const r = readProbe('local', 'fast', f)
    expect(r).toMatchObject({ available: false, how: 'none' })
    expect(r.note).toMatch(/^CRIU hangs on local: its hardware breakpoints never fire \(as on some VMs\)/)
    // Docker (and containerd's shim under ctr) start CRIU with the engine's environment: that is where it goes
    expect(r.note).toContain('set CRIU_FAULT=130 in the environment of Docker\'s service (systemctl edit docker, Environment=CRIU_FAULT=130)')
    expect(r.note).toContain('`berth server test local`')
    expect(r.note.split('. ').length).toBe(1)
  })

  it('a CRIU that hangs even with CRIU_FAULT=130 already in the engine, or for another reason, says so', () => {
    const helped = readProbe('local', 'fast', lines('root yes\ncriu /usr/sbin/criu\nfault 130\ndump late 9100\ndiagnose plain late\ndiagnose fault130 ok'))
    expect(helped.note).toBe('CRIU hangs on local even with CRIU_FAULT=130: pauses there freeze instead of keeping memory')
    const other = readProbe('local', 'fast', lines('root yes\ncriu /usr/sbin/criu\nfault none\ndump late 9100\ndiagnose plain late\ndiagnose fault130 late'))
    expect(other).toMatchObject({ available: false })
    expect(other.note).toBe(`CRIU did not finish a test dump within ${PROBE_DUMP_LIMIT_S} s on local (Berth ended it): pauses there freeze instead of keeping memory`)
  })

  it('not root: the helper container did not start', () => {
    const r = readProbe('office', 'docker', lines('root no\ncriu /usr/sbin/criu\ndump fail permission denied while trying to connect to the Docker daemon socket'))
    expect(r.note).toBe('Berth cannot act as root on office (its helper container did not start), which memory pauses need: permission denied while trying to connect to the Docker daemon socket')
  })

  it('a dump that works but a restore that does not: memory pauses are off, and why', () => {
    const r = readProbe('office', 'docker', lines('root yes\ncriu /usr/sbin/criu\ndump ok 2000 67108864\nrestore late 10050'))
    expect(r).toMatchObject({ available: false, how: 'none' })
    expect(r.note).toBe('CRIU dumps on office but Docker could not restore the test checkpoint (it did not finish within 30 s): pauses there freeze instead of keeping memory')
  })

  it('says the restore limit the server script keeps', () => {
    expect(SERVER_SCRIPT).toContain(`\nPROBE_RESTORE_S=${PROBE_RESTORE_S}\n`)
  })

  it('a probe that gave no answer at all fails plainly', () => {
    expect(readProbe('office', 'fast', new Map()).note).toBe('a test dump failed on office: the probe gave no answer')
  })

  it('refines the rate with each real dump, ignoring small ones', () => {
    const rec = { ...readProbe('office', 'fast', lines(WORKS)), fingerprint: 'x', probedAt: 'now' } as ProbeRecord
    const refined = refineRate(rec, 600 + 1000, 256 << 20)
    expect(refined.dumpMiBps).toBeCloseTo((rec.dumpMiBps! + 256) / 2, 0)
    expect(refineRate(rec, 700, 4 << 20)).toBe(rec)
  })
})

/** A server whose engine, kernel and CRIU the test changes, with a probe that counts its runs. */
function server(over: Partial<EngineFacts> = {}) {
  const facts: EngineFacts = { version: '28.1.1', apiVersion: '1.49', experimental: true, os: 'Debian GNU/Linux 12', kernel: '6.1.0', dockerRootDir: '/var/lib/docker', dockerHost: '', ...over }
  const state = { facts, criu: '/usr/sbin/criu 4.1', probes: 0, answer: WORKS }
  const runner = {
    fields: async (args: string[]) => {
      if (args[0] === 'probe') return lines('root yes\nctr yes')
      if (args[0] === 'criu-version') return lines(`criu ${state.criu}`)
      if (args[0] === 'probe-memory') {
        state.probes++
        return lines(state.answer)
      }
      throw new Error(`unexpected ${args.join(' ')}`)
    },
  }
  const engines = { get: () => ({ facts: async () => state.facts }), row: () => ({ options: {} }) } as unknown as EngineRegistry
  const kept = new Map<string, ProbeRecord>()
  const store: ProbeStore = { load: (s) => kept.get(s) ?? null, save: (s, r) => void kept.set(s, r) }
  class Probed extends Checkpoints {
    override runner(): ServerRunner {
      return runner as unknown as ServerRunner
    }
  }
  return { state, checkpoints: new Probed(engines, 'home', store), kept }
}

describe('when Berth tests a server again', () => {
  it('keeps a test while the engine, kernel and CRIU are unchanged, and tests again when one changes', async () => {
    const { state, checkpoints } = server()
    const first = await checkpoints.ability('office')
    expect(first).toMatchObject({ available: true, how: 'fast' })
    expect(first.probedAt).toMatch(/^\d{4}-/)
    expect(state.probes).toBe(1)
    // (Berth restarted, reconnected: the same machine) the test holds
    await checkpoints.ability('office')
    expect(state.probes).toBe(1)
    // Docker upgraded
    state.facts = { ...state.facts, version: '28.2.0' }
    await checkpoints.ability('office')
    expect(state.probes).toBe(2)
    // a new kernel
    state.facts = { ...state.facts, kernel: '6.12.0' }
    await checkpoints.ability('office')
    expect(state.probes).toBe(3)
    // a new CRIU
    state.criu = '/usr/sbin/criu 4.2'
    await checkpoints.ability('office')
    expect(state.probes).toBe(4)
    // `server test` always tests again
    await checkpoints.ability('office', { fresh: true })
    expect(state.probes).toBe(5)
  })

  it('a CRIU that starts hanging is found at the next test, and the lid-close path reads what was found without testing', async () => {
    const { state, checkpoints } = server()
    expect((await checkpoints.support('office')).memory).toBe(true)
    state.answer = 'root yes\ncriu /usr/sbin/criu\nfault none\ndump late 9050\ndiagnose plain late\ndiagnose fault130 ok'
    const hung = await checkpoints.ability('office', { fresh: true })
    expect(hung).toMatchObject({ available: false, how: 'none' })
    const probes = state.probes
    const quick = await checkpoints.support('office', { quick: true })
    expect(quick).toMatchObject({ memory: false, method: null })
    expect(quick.reason).toMatch(/CRIU_FAULT=130/)
    expect(state.probes).toBe(probes)
  })

  it('Docker not in experimental mode, and Docker Desktop: said at once, with no test dump', async () => {
    const plain = server({ experimental: false })
    const a = await plain.checkpoints.ability('office')
    expect(a).toMatchObject({ available: false, how: 'none' })
    expect(a.note).toBe('the Docker engine on office does not run in experimental mode, which checkpoints need (start dockerd with --experimental)')
    const desktop = server({ os: 'Docker Desktop' })
    expect((await desktop.checkpoints.ability('office')).note).toBe('Docker Desktop on office cannot checkpoint containers (no CRIU)')
    expect(plain.state.probes + desktop.state.probes).toBe(0)
  })
})
