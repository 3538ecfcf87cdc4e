// The snapshot browser's calls: a session's timeline with its lineage, and what changed between
// two snapshots (computed on their server, a page at a time).
import { z } from 'zod'
import { SessionState, Snapshot } from '../models'
import { call, SessionRef, SnapshotRef } from './define'

/** What keeps a snapshot: a session made from it, or a later snapshot taken after it. */
export const Dependent = z.object({ kind: z.enum(['session', 'snapshot']), id: z.string(), name: z.string() })
export type Dependent = z.infer<typeof Dependent>

export const TimelineEntry = Snapshot.extend({ dependents: z.array(Dependent) })
export type TimelineEntry = z.infer<typeof TimelineEntry>

/** One session of a lineage: where it came from (a snapshot of another session, by a verb). */
export const LineageNode = z.object({
  id: z.string(),
  name: z.string(),
  state: SessionState,
  server: z.string(),
  /** the session whose snapshot it was made from */
  parent: z.string().nullable(),
  snapshot: z.string().nullable(),
  verb: z.string().nullable(),
})
export type LineageNode = z.infer<typeof LineageNode>

export const Timeline = z.object({
  session: z.object({ id: z.string(), name: z.string() }),
  /** the session's checkpoints, oldest first */
  items: z.array(TimelineEntry),
  /** every session related to this one by forks and sessions started from snapshots */
  lineage: z.array(LineageNode),
})
export type Timeline = z.infer<typeof Timeline>

/** A path inside the session: absolute, one line, no parent steps. */
export const DiffPath = z
  .string()
  .min(2)
  .max(4096)
  .regex(/^\/[^\n\0]*$/, 'an absolute path on one line')
  .refine((p) => !`${p}/`.includes('/../') && !`${p}/`.includes('/./'), 'a path without . or .. steps')

export const DiffEntry = z.object({
  status: z.enum(['added', 'changed', 'deleted']),
  type: z.enum(['file', 'dir', 'link', 'other']),
  size: z.number(),
  path: z.string(),
})
export type DiffEntry = z.infer<typeof DiffEntry>

export const DiffPage = z.object({
  /** the snapshot compared against, or the image the session started from */
  from: z.string(),
  to: z.string(),
  total: z.number().int(),
  /** the list was already on the server (snapshots never change) */
  cached: z.boolean(),
  items: z.array(DiffEntry),
  /** the offset of the next page, or null */
  next: z.number().int().nullable(),
})
export type DiffPage = z.infer<typeof DiffPage>

export const FileDiff = z.object({
  path: z.string(),
  /** diff: a unified diff in text; binary or large: no text (large gives the bigger side's bytes) */
  kind: z.enum(['diff', 'binary', 'large']),
  text: z.string().nullable(),
  bytes: z.number().nullable(),
  /** the diff was cut at its first lines */
  truncated: z.boolean(),
})
export type FileDiff = z.infer<typeof FileDiff>

const pair = { to: SnapshotRef, from: SnapshotRef.optional() }

export const snapshotBrowserCalls = {
  'snapshot.timeline': call(
    z.object({ session: SessionRef }),
    Timeline,
    "a session's checkpoints, oldest first, with what depends on each and the lineage across sessions",
  ),
  'snapshot.diff': call(
    z.object({ ...pair, offset: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(5000).optional() }),
    DiffPage,
    'the files added, changed and deleted between two snapshots (default: since the one before), a page at a time',
  ),
  'snapshot.diffFile': call(
    z.object({ ...pair, path: DiffPath }),
    FileDiff,
    'a text diff of one file between two snapshots (small text files only)',
  ),
} as const
