import { z } from 'zod'
import { call, OpId, SessionRef } from './define'

export const SaveResult = z.object({
  dir: z.string(),
  branch: z.string(),
  /** the session branch's commit that was saved */
  commit: z.string(),
  /** the --no-ff merge commit on main (null when main already had this work) */
  merge: z.string().nullable(),
  /** DIR's main after the save */
  main: z.string(),
  /** true when new work was committed or merged by this save; false when it was already saved */
  changed: z.boolean(),
  /** true when DIR's main had moved since the session's base and was merged into the session branch first */
  mainMoved: z.boolean(),
  files: z.array(z.string()),
  savedAt: z.string(),
})

export const WorkspaceStatus = z.object({
  dir: z.string(),
  branch: z.string(),
  /** true when everything in /workspace is in DIR's main */
  saved: z.boolean(),
  /** uncommitted changes, as `git status --porcelain` lines */
  changes: z.array(z.string()),
  /** commits on the session branch that DIR's main does not have */
  unsavedCommits: z.array(z.string()),
  lastSave: z.object({ at: z.string(), commit: z.string(), main: z.string() }).nullable(),
})

export const workspaceCalls = {
  'workspace.save': call(
    z.object({ id: SessionRef, message: z.string().min(1).max(4000).optional(), op: OpId }),
    SaveResult,
    "commit the session's workspace, merge it --no-ff into main and write main back to the workspace folder",
  ),
  'workspace.status': call(z.object({ id: SessionRef }), WorkspaceStatus, 'what in a session has not been saved to its workspace'),
} as const
