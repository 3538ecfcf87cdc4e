import { z } from 'zod'
import { Limits, RestartPolicy, Session, SessionState, SessionSummary } from '../models'
import { call, OpId, SecretName, SessionRef, SnapshotRef } from './define'
import { ServerName } from './servers'

export const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment name is letters, digits and _')
export const SessionName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a session name is letters, digits, dot, dash and underscore')

export const sessionCalls = {
  'session.create': call(
    z
      .object({
        server: ServerName.optional(),
        image: z.string().min(1).max(256).optional(),
        /** start from a snapshot instead of an image (carried to --server when it lives elsewhere) */
        from: SnapshotRef.optional(),
        /** start from a project folder's devcontainer.json (an absolute path on the machine running Berth) */
        devcontainer: z.string().min(1).max(4096).optional(),
        name: SessionName.optional(),
        env: z.record(EnvName, z.string()).optional(),
        workspace: z.string().min(1).optional(),
        /** stored secrets the session gets as files under /run/berth/secrets/ */
        secrets: z.array(SecretName).max(64).optional(),
        /** what the session may use (defaults from settings) */
        limits: Limits.optional(),
        /** when the image's own main process stops by itself (default on-failure) */
        restart: RestartPolicy.optional(),
        op: OpId,
      })
      .refine((a) => [a.image, a.from, a.devcontainer].filter(Boolean).length === 1, 'give one of an image, a snapshot or a devcontainer folder to start from'),
    Session,
    'create a session from an image or a snapshot on a server',
  ),
  'session.list': call(
    z.object({ state: SessionState.optional(), server: ServerName.optional() }),
    z.array(SessionSummary),
    'list sessions, newest first: a summary of each (session.show has the whole session)',
  ),
  'session.show': call(z.object({ id: SessionRef }), Session, 'show one session'),
  'session.set': call(
    z.object({ id: SessionRef, limits: Limits }),
    Session,
    "change a session's limits (a running session's at once, where the engine allows it; session.configure changes its pause settings)",
  ),
  'session.finish': call(
    z.object({ id: SessionRef, force: z.boolean().optional() }),
    Session,
    'finish a session: its container is destroyed, its row stays in history',
  ),
} as const
