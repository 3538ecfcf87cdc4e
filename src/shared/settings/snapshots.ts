import { z } from 'zod'

// Seals, retention and clean-up (issue 4 owns these keys).
export const snapshotSettings = {
  /** how often a running session's disk is sealed without stopping it; 0 turns sealing off */
  sealMinutes: z.number().min(0).max(24 * 60).default(5),
  /** automatic checkpoints kept per session (never one that a fork, a named snapshot or a rewind depends on) */
  keepAutomatic: z.number().int().min(1).max(1000).default(10),
  /** paused sessions older than this are listed for clean-up (never deleted silently); 0 lists every paused one */
  staleAfterDays: z.number().min(0).max(3650).default(14),
}
