import type Dockerode from 'dockerode'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { holdExecs, openExec } from './exec-gate'

const after = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** An engine whose exec start answers after `startMs` and whose process runs `setupMs` later. */
function fakeEngine(startMs: number, setupMs: number) {
  const log: string[] = []
  const docker = {
    getContainer: (id: string) => ({
      exec: async (o: Dockerode.ExecCreateOptions) => {
        const cmd = (o.Cmd ?? []).join(' ')
        log.push(`create ${id} ${cmd}`)
        let startedAt = 0
        return {
          start: async () => {
            await after(startMs)
            startedAt = Date.now()
            log.push(`started ${cmd}`)
            return new PassThrough()
          },
          inspect: async () => ({ Running: true, Pid: Date.now() - startedAt >= setupMs ? 42 : 0 }),
        }
      },
    }),
  } as unknown as Dockerode
  return { docker, log }
}

const create = (cmd: string): Dockerode.ExecCreateOptions => ({ Cmd: [cmd], AttachStdout: true })

describe('starting processes in a container that is about to be paused', () => {
  it('refuses new ones with the reason while held, and starts them again once released', async () => {
    const { docker } = fakeEngine(1, 0)
    const release = await holdExecs('c1', 'session calm-otter-1 is pausing; run it again once it resumes')
    await expect(openExec(docker, 'c1', create('ls'), { hijack: true })).rejects.toThrow('calm-otter-1 is pausing')
    // another container is not held
    await expect(openExec(docker, 'c2', create('ls'), { hijack: true })).resolves.toBeTruthy()
    release()
    await expect(openExec(docker, 'c1', create('ls'), { hijack: true })).resolves.toBeTruthy()
  })

  it('keeps a container held until every hold on it is released (a checkpoint inside a pause, a snapshot)', async () => {
    const { docker } = fakeEngine(1, 0)
    const outer = await holdExecs('c5', 'session calm-otter-5 is pausing')
    const inner = await holdExecs('c5', 'the session is being checkpointed')
    await expect(openExec(docker, 'c5', create('ls'), { hijack: true })).rejects.toThrow('being checkpointed')
    inner()
    inner()
    await expect(openExec(docker, 'c5', create('ls'), { hijack: true })).rejects.toThrow('calm-otter-5 is pausing')
    outer()
    await expect(openExec(docker, 'c5', create('ls'), { hijack: true })).resolves.toBeTruthy()
  })

  it('waits for a start under way, and for its process to run, before the pause goes on', async () => {
    const { docker, log } = fakeEngine(60, 80)
    const opening = openExec(docker, 'c3', create('tmux-attach'), { hijack: true })
    await after(5)
    const t0 = Date.now()
    const release = await holdExecs('c3', 'pausing')
    log.push('held')
    // the engine answered the start after 60 ms; its process ran 80 ms after that
    expect(Date.now() - t0).toBeGreaterThanOrEqual(120)
    expect(log).toEqual(['create c3 tmux-attach', 'started tmux-attach', 'held'])
    await opening
    release()
  })

  it('gives up waiting at its limit rather than holding a pause forever', async () => {
    const { docker } = fakeEngine(1_500, 0)
    const opening = openExec(docker, 'c4', create('stuck'), { hijack: true }).catch(() => undefined)
    await after(5)
    const t0 = Date.now()
    const release = await holdExecs('c4', 'pausing', 100)
    expect(Date.now() - t0).toBeLessThan(1_000)
    release()
    void opening
  })
})
