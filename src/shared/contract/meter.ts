import { z } from 'zod'
import { Server } from '../models'
import { call } from './define'
import { ServerName } from './servers'

export const meterCalls = {
  'server.setRate': call(
    z.object({ name: ServerName, ratePerHour: z.number().min(0).max(1_000_000) }),
    Server,
    "set a server's hourly rate (the meter's cost estimate grows at it while a session runs there)",
  ),
} as const
