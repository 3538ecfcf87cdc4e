import { describe, expect, it } from 'vitest'
import { resumeInWakeOrder, wakeOrder } from './wake-order'

describe('wake order', () => {
  it('puts the session used last first, the others after in the order given', () => {
    expect(
      wakeOrder([
        { id: 'a', lastUsedMs: 100 },
        { id: 'b', lastUsedMs: 300 },
        { id: 'c', lastUsedMs: null },
        { id: 'd', lastUsedMs: 200 },
      ]),
    ).toEqual({ first: 'b', rest: ['a', 'c', 'd'] })
  })

  it('has no first when no session was used since Berth started', () => {
    expect(wakeOrder([{ id: 'a', lastUsedMs: null }, { id: 'b', lastUsedMs: null }])).toEqual({ first: null, rest: ['a', 'b'] })
    expect(wakeOrder([])).toEqual({ first: null, rest: [] })
  })

  it('starts no other resume before the first has answered, then all the others together; a failed first holds no one', async () => {
    const log: string[] = []
    let release!: () => void
    const firstHeld = new Promise<void>((r) => (release = r))
    const resume = async (id: string) => {
      log.push(`start ${id}`)
      if (id === 'b') {
        await firstHeld
        log.push('end b')
        throw new Error('b could not come back')
      }
      await new Promise((r) => setTimeout(r, 5))
      log.push(`end ${id}`)
      return id
    }
    const running = resumeInWakeOrder(
      [
        { id: 'a', lastUsedMs: 1 },
        { id: 'b', lastUsedMs: 2 },
        { id: 'c', lastUsedMs: null },
      ],
      resume,
    )
    await new Promise((r) => setTimeout(r, 20))
    expect(log).toEqual(['start b'])
    release()
    const results = await running
    expect(log.slice(0, 4)).toEqual(['start b', 'end b', 'start a', 'start c'])
    expect([...results.keys()]).toEqual(['a', 'b', 'c'])
    expect(results.get('a')).toEqual({ status: 'fulfilled', value: 'a' })
    expect(results.get('b')).toMatchObject({ status: 'rejected' })
  })
})
