import { describe, expect, it } from 'vitest'
import { DISK_MS, dumpBudgetMs, estimateMs, FREEZE_MS, MIN_BUDGET_MS, planDumps, planNeedsMs, type PlanSession, type ServerRate } from './pause-planner'

const MiB = 1 << 20
const rates: Record<string, ServerRate> = {
  local: { memory: true, mibps: 200, overheadMs: 300 },
  office: { memory: true, mibps: 100, overheadMs: 300 },
  desktop: { memory: false, mibps: null, overheadMs: null },
}
const rateOf = (s: string) => rates[s]!
const session = (id: string, server: string, mib: number, lastUsedMs: number | null = null): PlanSession => ({ id, server, memoryBytes: mib * MiB, lastUsedMs })

describe('planning the dumps of a pause', () => {
  it('estimates a dump from the memory and the server rate', () => {
    expect(estimateMs(256 * MiB, rates.local!)).toBe(300 + 1280)
    // unknown memory and rate: conservative defaults
    expect(estimateMs(null, { memory: true, mibps: null, overheadMs: null })).toBeGreaterThan(1500)
  })

  it('dumps one at a time per server, the last used first, then the smallest', () => {
    const plans = planDumps([session('big', 'local', 512), session('small', 'local', 64), session('used', 'local', 256, 1000), session('mid', 'local', 128)], rateOf, 5000, 'frozen')
    expect(plans.map((p) => p.id)).toEqual(['used', 'small', 'mid', 'big'])
    expect(plans.map((p) => p.order)).toEqual([0, 1, 2, 3])
    expect(plans[0]!.startsAtMs).toBe(FREEZE_MS)
    expect(plans[1]!.startsAtMs).toBe(FREEZE_MS + plans[0]!.estimateMs)
    // the biggest does not fit a 5 s window after the others
    expect(plans.find((p) => p.id === 'big')!.fits).toBe(false)
    expect(plans.find((p) => p.id === 'used')!.fits).toBe(true)
  })

  it('runs as many dumps at once as the server has slots for, each on the lane that frees first', () => {
    const two: ServerRate = { ...rates.local!, slots: 2 }
    const plans = planDumps([session('a', 'local', 64), session('b', 'local', 128), session('c', 'local', 256), session('d', 'local', 512)], () => two, 60_000, 'frozen')
    const at = Object.fromEntries(plans.map((p) => [p.id, p.startsAtMs]))
    const est = Object.fromEntries(plans.map((p) => [p.id, p.estimateMs]))
    // the two smallest start at once; each next one where a lane frees first
    expect(at.a).toBe(FREEZE_MS)
    expect(at.b).toBe(FREEZE_MS)
    expect(at.c).toBe(FREEZE_MS + est.a!)
    expect(at.d).toBe(FREEZE_MS + est.b!)
    expect(planNeedsMs(plans)).toBe(FREEZE_MS + est.b! + est.d! + 300)
  })

  it('plans servers side by side, and leaves out servers that cannot dump memory', () => {
    const plans = planDumps([session('a', 'local', 256), session('b', 'office', 256), session('c', 'desktop', 256)], rateOf, 5000, 'frozen')
    expect(plans.map((p) => [p.id, p.startsAtMs])).toEqual([
      ['a', FREEZE_MS],
      ['b', FREEZE_MS],
    ])
    expect(planNeedsMs(plans)).toBe(FREEZE_MS + estimateMs(256 * MiB, rates.office!) + 300)
  })

  it('never gives a dump more time than the deadline leaves, keeping room for a disk pause when asked', () => {
    const [frozen] = planDumps([session('a', 'local', 4096)], rateOf, 8000, 'frozen')
    const [disk] = planDumps([session('a', 'local', 4096)], rateOf, 8000, 'disk')
    expect(frozen!.budgetMs).toBe(8000 - FREEZE_MS - 300)
    expect(disk!.budgetMs).toBe(8000 - FREEZE_MS - 300 - DISK_MS)
    expect(disk!.fits).toBe(false)
    // a small dump gets 10 s at least (a loaded machine), a big one three times its estimate and 2 s
    const [small] = planDumps([session('s', 'local', 16)], rateOf, 60_000, 'disk')
    expect(small!.budgetMs).toBe(MIN_BUDGET_MS)
    const [big] = planDumps([session('b', 'local', 2048)], rateOf, 120_000, 'disk')
    expect(big!.budgetMs).toBe(big!.estimateMs * 3 + 2000)
  })

  it('budgets a dump at min(room, max(estimate x 3 + 2 s, 10 s))', () => {
    expect(dumpBudgetMs(1000, 60_000)).toBe(10_000)
    expect(dumpBudgetMs(4000, 60_000)).toBe(14_000)
    expect(dumpBudgetMs(4000, 9000)).toBe(9000)
    expect(dumpBudgetMs(1000, 3000)).toBe(3000)
    // a deadline already spent still lets the dump be tried briefly (the server ends it)
    expect(dumpBudgetMs(1000, -200)).toBe(500)
  })
})
