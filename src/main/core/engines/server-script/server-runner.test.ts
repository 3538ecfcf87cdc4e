import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { Engine, ShellProcess } from '../engine'
import { ServerRunner } from './server-runner'

/** An engine whose shell runs nothing: each call ends as the next of ENDINGS says (a code, or null with why). */
function engineEnding(endings: Array<{ code: number | null; out?: string; why?: string }>): { engine: Engine; calls: () => number } {
  let n = 0
  const shell = async (): Promise<ShellProcess> => {
    const e = endings[Math.min(n++, endings.length - 1)]!
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    const stdin = new PassThrough()
    stdin.resume()
    setImmediate(() => {
      stdout.end(e.out ?? '')
      stderr.end()
    })
    const exit = new Promise<number | null>((resolve) => stdout.on('end', () => resolve(e.code)))
    stdout.resume()
    return { stdin, stdout, stderr, exit, ending: () => e.why ?? 'ended with no exit status', kill: () => undefined }
  }
  return { engine: { name: 'office', shell } as unknown as Engine, calls: () => n }
}

describe('a server command whose connection drops', () => {
  it('is run once more when it only reads, and answers from the second run', async () => {
    const { engine, calls } = engineEnding([
      { code: 0, out: 'probe 1\n' },
      { code: null, why: 'the ssh connection to office@10.0.0.2:22 closed: Keepalive timeout' },
      { code: 0, out: 'dir /state/xfer/k\n' },
    ])
    const r = new ServerRunner(engine, 'home')
    await r.run(['probe'])
    expect(await r.field(['xfer-dir', 'k'], 'dir', 'finding the transfer folder', { again: true })).toBe('/state/xfer/k')
    expect(calls()).toBe(3)
  })

  it('says both endings when the second run fails too', async () => {
    const { engine } = engineEnding([{ code: 0 }, { code: null, why: 'ended by signal KILL' }, { code: null, why: 'the ssh connection to office closed' }])
    const r = new ServerRunner(engine, 'home')
    await r.run(['probe'])
    await expect(r.field(['xfer-dir', 'k'], 'dir', 'finding the transfer folder', { again: true })).rejects.toThrow(
      'finding the transfer folder failed on office: the ssh connection to office closed (and before that, once: ended by signal KILL)',
    )
  })

  it('is not run again when it changes things, and says why it ended', async () => {
    const { engine, calls } = engineEnding([{ code: 0 }, { code: null, why: 'ended by signal KILL' }, { code: 0, out: 'bytes 1\n' }])
    const r = new ServerRunner(engine, 'home')
    await r.run(['probe'])
    await expect(r.fields(['checkpoint-create', 'c', 'n', 'fast'], 'the checkpoint')).rejects.toThrow('the checkpoint failed on office: ended by signal KILL')
    expect(calls()).toBe(2)
  })
})
