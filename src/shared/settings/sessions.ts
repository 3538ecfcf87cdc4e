import { z } from 'zod'
import { parseSize } from '../sizes'

// Default limits of a new session (issue 21); none by default. A create's own flags win.
export const sessionSettings = {
  /** cpus a new session may use (like docker --cpus); null: no limit */
  sessionCpus: z.number().positive().max(1024).nullable().default(null),
  /** memory a new session may use, as a size ("2g", "512m"); null: no limit */
  sessionMemory: z
    .string()
    .refine((v) => (parseSize(v) ?? 0) >= 6 * 2 ** 20, 'a size of at least 6m, like 512m or 2g')
    .nullable()
    .default(null),
  /** processes a new session may run at once; null: no limit */
  sessionPids: z.number().int().min(16).max(4_194_304).nullable().default(null),
}
