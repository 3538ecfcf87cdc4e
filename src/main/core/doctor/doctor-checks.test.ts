import { describe, expect, it } from 'vitest'
import type { Engine } from '../engines/engine'
import { engineCheck, memoryPauseCheck, serversCheck } from './doctor-checks'

/** An engine whose every answer never comes (a wedged Docker, a server behind a dead route). */
const hung = { ready: () => new Promise<void>(() => undefined), facts: () => new Promise(() => undefined) } as unknown as Engine
const choice = { socket: '/var/run/docker.sock', source: 'well-known' as const, why: "the system's Docker socket", problem: null, lookedAt: [] }

describe("doctor's checks, when what they ask does not answer", () => {
  it('say so within their deadline instead of holding the report', async () => {
    const t0 = Date.now()
    const [engine, servers] = await Promise.all([engineCheck(choice, hung), serversCheck([{ name: 'office', engine: () => hung }])])
    expect(Date.now() - t0).toBeLessThan(4500)
    expect(engine).toMatchObject({ status: 'fail', problem: 'unanswered' })
    expect(engine.summary).toContain('the Docker engine on /var/run/docker.sock did not answer within 3 s')
    expect(servers).toMatchObject({ status: 'warn', problem: 'unreachable', summary: 'server office did not answer within 3 s' })
  })

  it('memory pause: a failing probe is "unknown", never an exception', async () => {
    const r = await memoryPauseCheck('local', async () => {
      throw new Error('server local is unreachable: no Docker engine answers on /var/run/docker.sock')
    })
    expect(r).toMatchObject({ status: 'warn', problem: 'unknown', summary: 'server local is unreachable: no Docker engine answers on /var/run/docker.sock' })
    expect((await memoryPauseCheck('local', async () => ({ available: false, how: 'none', note: 'the Docker engine on local does not run in experimental mode', probedAt: null, dumpMiBps: null }))).problem).toBe('unavailable')
  })
})
