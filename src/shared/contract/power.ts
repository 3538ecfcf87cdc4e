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

/** The OS's sleep window against what the running sessions need to pause before it closes. */
export const PowerDoctor = z.object({
  platform: z.string(),
  window: z.object({
    /** seconds the OS waits for Berth before it sleeps; null where it waits for no one */
    seconds: z.number().nullable(),
    source: z.enum(['logind', 'logind.conf', 'default', 'none']),
    note: z.string(),
  }),
  /** the deadline the lid-close pauses get (the pauseDeadlineSeconds setting, else the window less half a second) */
  deadlineMs: z.number(),
  /** how long freezing every running session and writing its memory needs, by the measured rates */
  needMs: z.number(),
  /** whether that fits the deadline; null where the OS gives no window to fit */
  fits: z.boolean().nullable(),
  sessions: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      server: z.string(),
      memoryBytes: z.number().nullable(),
      /** how its pause would keep it: memory written in the window, frozen (memory written later), frozen (the server cannot dump memory) */
      plan: z.enum(['memory', 'frozen-then-memory', 'frozen']),
      estimateMs: z.number().nullable(),
    }),
  ),
  /** the sleep hook: installed where, or not */
  hook: z.object({ installed: z.boolean(), path: z.string().nullable() }),
  /** what to do, in one sentence */
  advice: z.string(),
})
export type PowerDoctor = z.infer<typeof PowerDoctor>

export const powerCalls = {
  'power.event': call(
    z.object({ event: PowerEvent }),
    PowerEventResult,
    'the OS is about to sleep (pause per the sleep policy, durably) or woke up (reconcile, resume what the policy paused)',
  ),
  'power.doctor': call(z.object({}), PowerDoctor, "the OS's sleep window, the time the running sessions need to pause, and whether it fits"),
  'power.installHook': call(
    z.object({
      /** the platform to write a hook for (default: this one) */
      platform: HookPlatform.optional(),
      /** where to write it (default: /lib/systemd/system-sleep on Linux, the home folder on macOS); only a known hook folder, only through the control socket */
      dir: z.string().min(1).optional(),
      /** also raise logind's InhibitDelayMaxSec to what the sessions need (a drop-in in /etc/systemd/logind.conf.d) */
      logind: z.boolean().optional(),
      /** how to run this berth: [node, script] or [binary] (default: the app's berth command) */
      berth: z.array(z.string().min(1)).min(1).max(4).optional(),
    }),
    z.object({ platform: HookPlatform, files: z.array(z.object({ path: z.string(), content: z.string(), mode: z.number().optional() })), note: z.string() }),
    'write the sleep hook that pauses sessions before the machine sleeps',
  ),
} as const
