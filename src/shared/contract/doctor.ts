import { z } from 'zod'
import { DOCTOR_CHECK_IDS, type DoctorCheckId } from '../doctor'
import { call } from './define'

// `berth doctor`: what Berth found on this machine, check by check (the catalogue of checks and
// their fixes is src/shared/doctor.ts).

export const DoctorCheck = z.object({
  id: z.enum(DOCTOR_CHECK_IDS as [DoctorCheckId, ...DoctorCheckId[]]),
  title: z.string(),
  status: z.enum(['ok', 'warn', 'fail']),
  /** what was found, in one sentence */
  summary: z.string(),
  /** the problem's key in the catalogue, when there is one */
  problem: z.string().nullable(),
  /** what to do about it (null when all is well) */
  fix: z.string().nullable(),
  /** the facts behind the summary, for scripts */
  facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())])),
})
export type DoctorCheck = z.infer<typeof DoctorCheck>

/** Which engine a process would take, as the CLI found it in its own environment. */
export const EngineSeen = z.object({ socket: z.string().nullable(), why: z.string() })

export const doctorCalls = {
  'doctor.report': call(
    z.object({ client: EngineSeen.optional() }),
    z.object({ checks: z.array(DoctorCheck), host: z.enum(['daemon', 'electron']), home: z.string() }),
    'what Berth found on this machine: its engine and why, pause with memory, the gateway and preview ports, ssh by name, the sleep hook, the servers',
  ),
} as const
