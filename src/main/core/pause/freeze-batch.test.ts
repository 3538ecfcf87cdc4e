import { describe, expect, it } from 'vitest'
import type { FreezeAnswer, FreezeMember } from '../engines/server-script/freeze-all'
import { FreezeBatch } from './freeze-batch'

const member = (cid: string): FreezeMember => ({ facts: [cid, '1', '/u'], mode: 'memory' })
const frozenAll = (members: FreezeMember[]) => new Map<string, FreezeAnswer>(members.map((m) => [m.facts[0]!, { frozen: true, execsEnded: 0 }]))

describe("a server's batch freeze (stage one of pause --all)", () => {
  it('goes once every session of the server is in or out, in one call for all', async () => {
    const calls: string[][] = []
    const b = new FreezeBatch(['s1', 's2', 's3'], async (m) => (calls.push(m.map((x) => x.facts[0]!)), frozenAll(m)), 5_000, 60_000)
    const one = b.join('s1', member('c1'))
    b.leave('s2')
    const three = b.join('s3', member('c3'))
    expect(await one).toMatchObject({ frozen: true, execsEnded: 0 })
    expect(await three).toMatchObject({ frozen: true })
    expect(calls).toEqual([['c1', 'c3']])
  })

  it('does not wait long for a session that never comes: it goes a moment after the first, and the late one freezes on its own', async () => {
    const b = new FreezeBatch(['s1', 's2'], async (m) => frozenAll(m), 5_000, 50)
    const t0 = performance.now()
    expect(await b.join('s1', member('c1'))).toMatchObject({ frozen: true })
    expect(performance.now() - t0).toBeLessThan(1_000)
    expect(await b.join('s2', member('c2'))).toMatchObject({ frozen: false, reason: expect.stringMatching(/came after/) })
  })

  it('a server that does not answer in time, or fails, holds nobody: each member is told why and freezes on its own', async () => {
    const hung = new FreezeBatch(['s1'], () => new Promise<Map<string, FreezeAnswer>>(() => undefined), 100)
    expect(await hung.join('s1', member('c1'))).toEqual({ frozen: false, reason: 'the server did not freeze its sessions within 0.1 s' })
    const failing = new FreezeBatch(['s1'], () => Promise.reject(new Error('no root helper')), 5_000)
    expect(await failing.join('s1', member('c1'))).toEqual({ frozen: false, reason: "the server's freeze of all its sessions failed: no root helper" })
  })

  it('one container the server could not freeze keeps its own outcome; the others are frozen', async () => {
    const b = new FreezeBatch(['s1', 's2'], async () => new Map<string, FreezeAnswer>([['c1', { frozen: true, execsEnded: 1 }], ['c2', { frozen: false, reason: 'docker pause did not answer within 0.9 s' }]]), 5_000)
    const [a, c] = await Promise.all([b.join('s1', member('c1')), b.join('s2', member('c2'))])
    expect(a).toMatchObject({ frozen: true, execsEnded: 1 })
    expect(c).toEqual({ frozen: false, reason: 'docker pause did not answer within 0.9 s' })
  })
})
