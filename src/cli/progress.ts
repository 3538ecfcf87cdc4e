// Long verbs print their progress events (stage, bytes, rate) on stderr while they run.
import { randomBytes } from 'node:crypto'
import type { ControlClient } from '../main/doors/control-client'
import { progressPrinter } from './output'

/** Subscribes to this call's progress events; returns the op id to pass with the call. */
export async function followProgress(c: ControlClient, quiet = false): Promise<string> {
  const op = randomBytes(6).toString('hex')
  if (quiet) return op
  await c.call('events.subscribe', { names: ['progress'] })
  const print = progressPrinter()
  c.on('progress', (p) => p.op === op && print(p))
  return op
}
