import { z } from 'zod'
import { MeterSummary, Server } from '../models'
import { call } from './define'
import { ServerName } from './servers'

export const meterCalls = {
  'server.setRate': call(
    z.object({ name: ServerName, ratePerHour: z.number().min(0).max(1_000_000) }),
    Server,
    "set a server's hourly rate (the meter's cost estimate grows at it while a session runs there)",
  ),
} as const

/** After each sampling round: the meters of the sessions it sampled, as a list shows them. */
export const MeterSampled = z.object({ meters: z.array(z.object({ sessionId: z.string(), meter: MeterSummary })) })
export type MeterSampled = z.infer<typeof MeterSampled>
