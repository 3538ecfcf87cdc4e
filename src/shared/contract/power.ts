import { z } from 'zod'
import { ErrorBody } from '../errors'
import { PauseResult, ResumeResult } from './pause'
import { call } from './define'

export const PowerEvent = z.enum(['suspend', 'resume'])
export type PowerEvent = z.infer<typeof PowerEvent>

const Outcome = <T extends z.ZodType>(result: T) =>
  z.object({ id: z.string(), name: z.string(), result: result.optional(), error: ErrorBody.optional() })

export const PowerEventResult = z.object({
  event: PowerEvent,
  policy: z.string(),
  paused: z.array(Outcome(PauseResult)),
  resumed: z.array(Outcome(ResumeResult)),
  /** sessions whose interrupted pause or resume was brought to a consistent state */
  reconciled: z.number().int(),
  /** the logind delay inhibitor: held while the pause ran, or why there was none */
  inhibitor: z.string(),
  ms: z.number(),
})
export type PowerEventResult = z.infer<typeof PowerEventResult>

export const HookPlatform = z.enum(['linux', 'darwin'])

export const powerCalls = {
  'power.event': call(
    z.object({ event: PowerEvent }),
    PowerEventResult,
    'the OS is about to sleep (pause per the sleep policy, durably) or woke up (reconcile, resume what the policy paused)',
  ),
  'power.installHook': call(
    z.object({
      /** the platform to write a hook for (default: this one) */
      platform: HookPlatform.optional(),
      /** where to write it (default: /lib/systemd/system-sleep on Linux, the home folder on macOS) */
      dir: z.string().min(1).optional(),
      /** how to run this berth: [node, script] or [binary] (default: the app's berth command) */
      berth: z.array(z.string().min(1)).min(1).max(4).optional(),
    }),
    z.object({ platform: HookPlatform, files: z.array(z.object({ path: z.string(), content: z.string() })), note: z.string() }),
    'write the sleep hook that pauses sessions before the machine sleeps',
  ),
} as const
