// What the pause stories check beside the CLI's answers: the server-script jobs a pause leaves
// running on the laptop, and a frozen session's memory written at the next contact.
import { readdirSync, readFileSync } from 'node:fs'
import { until, type BerthHome } from './berth'

/** The processes of this Berth's server-script jobs still running on the laptop (its BERTH_HOME_ID in their environment). */
export function jobProcesses(homeId: string): string[] {
  const out: string[] = []
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      if (!env.includes(`BERTH_HOME_ID=${homeId}`) || !env.some((e) => e.startsWith('BERTH_JOB='))) continue
      out.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`)
    } catch {
      // gone meanwhile
    }
  }
  return out
}

/**
 * Waits (2 min at most) until session ID, left frozen with its memory pending, is a durable memory
 * pause: once the lid-close window is long past, the next contact with the laptop's engine writes it.
 */
export async function untilFrozenMemoryWritten(berth: BerthHome, id: string): Promise<unknown> {
  return await until(
    async () => {
      await berth.json(['server', 'test', 'local'])
      const s = await berth.json(['session', 'show', id])
      return s.state === 'paused' && s.durable && s.mode === 'memory' ? s : undefined
    },
    'the frozen session to become a durable memory pause',
    120_000,
  )
}
