import { z } from 'zod'
import { call } from './define'

export const DaemonInfo = z.object({
  pid: z.number().int(),
  home: z.string(),
  /** labels this home's containers and volumes on every engine (berth.home=<homeId>) */
  homeId: z.string(),
  version: z.string(),
  host: z.enum(['daemon', 'electron']),
  startedAt: z.string(),
  /** the folder of its log files (daemon.log or app.log, and their rotated older ones) */
  logs: z.string(),
})

export const daemonCalls = {
  'daemon.info': call(z.object({}), DaemonInfo, 'which process drives the engines for this BERTH_HOME'),
  'daemon.shutdown': call(z.object({}), z.object({ ok: z.boolean() }), 'stop the daemon of this BERTH_HOME'),
  'events.subscribe': call(
    z.object({ names: z.array(z.string()).optional() }),
    z.object({ ok: z.boolean() }),
    'receive change and progress events on this connection',
  ),
} as const
