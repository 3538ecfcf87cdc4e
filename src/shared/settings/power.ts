import { z } from 'zod'

// What happens around sleep and idleness (issue 3 owns these keys).
export const powerSettings = {
  /** on sleep, pause every running session, only those marked auto-pause, or nothing */
  onSleep: z.enum(['all', 'marked', 'nothing']).default('all'),
  /** on wake, resume the sessions the sleep policy paused (user-paused ones stay paused) */
  resumeOnWake: z.boolean().default(true),
  /** idle time before a session pauses itself; 0 turns idle auto-pause off */
  idleAfterSeconds: z.number().int().min(0).max(7 * 24 * 3600).default(600),
  /**
   * how long `pause --all` and the sleep policy may take before they answer with each session's
   * state; null: the OS's sleep window (logind's InhibitDelayMaxSec, less half a second)
   */
  pauseDeadlineSeconds: z.number().min(1).max(3600).nullable().default(null),
  /**
   * how many memory dumps a server writes at once during a lid-close pause; null: Berth's choice
   * (one: bench/lid-close measured no clear gain from two on a 2-core machine, see pause-planner.ts)
   */
  dumpsAtOnce: z.number().int().min(1).max(16).nullable().default(null),
  /**
   * resume from memory with CRIU's lazy pages (issue 19): the session runs as soon as its processes
   * are back and its memory follows; where the server cannot, the full restore, said in the result
   */
  lazyResume: z.boolean().default(false),
  /** how long a lazy resume may take to bring all memory back before it is restored again in full */
  lazyResumeDeadlineSeconds: z.number().int().min(5).max(3600).default(120),
  /** how often a running session's cpu, memory and disk are sampled for the meter */
  meterSampleSeconds: z.number().int().min(1).max(3600).default(5),
}
