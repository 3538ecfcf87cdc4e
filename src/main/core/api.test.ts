import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { checkResult, CHECK_RESULTS } from './api'

const Shape = z.object({ id: z.string(), meter: z.object({ cost: z.number() }), tags: z.array(z.string()) })

describe('the result check the tests run on every call', () => {
  it('is on under test', () => {
    expect(CHECK_RESULTS).toBe(true)
  })

  it('passes a result that is exactly the contract', () => {
    expect(() => checkResult('x.show', Shape, { id: 'a', meter: { cost: 1 }, tags: [] })).not.toThrow()
  })

  it('names a field the contract does not have, since production would send it', () => {
    expect(() => checkResult('x.show', Shape, { id: 'a', meter: { cost: 1, secret: 's' }, tags: [] })).toThrow(
      'the core answered x.show with fields the contract does not have: meter.secret',
    )
  })

  it('names a malformed field', () => {
    expect(() => checkResult('x.show', Shape, { id: 'a', meter: { cost: 'free' }, tags: [] })).toThrow(/malformed result: meter.cost/)
  })
})
