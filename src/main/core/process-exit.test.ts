import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { processAlive, processExited } from './process-exit'

describe('processExited', () => {
  it('sees a process run, then waits for it to exit', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)'])
    expect(processAlive(child.pid!)).toBe(true)
    expect(await processExited(child.pid!, 50)).toBe(false)
    expect(await processExited(child.pid!, 5_000)).toBe(true)
    expect(processAlive(child.pid!)).toBe(false)
  })
})
