import { describe, expect, it } from 'vitest'
import { SessionWork } from './session-work'

const after = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

describe("a session's one piece of work at a time", () => {
  it('starts a hold only once the work under way is done, and makes later work wait for it', async () => {
    const work = new SessionWork()
    const log: string[] = []
    const pause = work.begin('s1', 'pause')
    const held = work.hold('s1', async () => {
      log.push('hold runs')
      await after(30)
      log.push('hold ends')
      return 'snapshot'
    })
    await after(10)
    log.push('pause ends')
    pause.done.resolve({ paused: true })
    work.end('s1', pause)
    await after(5)
    // a resume arriving now finds the hold and waits for it
    expect(work.get('s1')?.kind).toBe('hold')
    await work.settled('s1')
    log.push('resume may begin')
    expect(await held).toBe('snapshot')
    expect(log).toEqual(['pause ends', 'hold runs', 'hold ends', 'resume may begin'])
    expect(work.has('s1')).toBe(false)
  })

  it('lets two holds of one session take turns, and a failed one release the session', async () => {
    const work = new SessionWork()
    const log: string[] = []
    const first = work.hold('s2', async () => {
      log.push('first')
      await after(20)
      throw new Error('commit failed')
    })
    const second = work.hold('s2', async () => {
      log.push('second')
      return 2
    })
    await expect(first).rejects.toThrow('commit failed')
    expect(await second).toBe(2)
    expect(log).toEqual(['first', 'second'])
    expect(work.has('s2')).toBe(false)
  })
})
