// The workspace verbs: save (the only way work leaves a session), status (what is not saved yet),
// and the guard that keeps `finish` from destroying unsaved work.
import { z } from 'zod'
import type { SaveResult, WorkspaceStatus } from '../../../shared/contract/workspace'
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import type { EngineRegistry } from '../engines/engine-registry'
import { progressOn } from '../progress'
import type { Lifecycle } from '../sessions/lifecycle'
import type { SessionService } from '../sessions/session-service'
import type { Db } from '../store/database'
import { nowIso } from '../store/database'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { CoreBus } from '../bus'
import { saveWorkspace } from './workspace-save'
import { parseStatus, STATUS_SCRIPT } from './workspace-scripts'
import { WorkspaceRunner } from './workspace-runner'

type Save = z.infer<typeof SaveResult>
type Status = z.infer<typeof WorkspaceStatus>

/** States in which the session's workspace volume exists and can be read. */
const READABLE = ['running', 'paused', 'failed'] as const

export class WorkspaceService {
  private readonly runner: WorkspaceRunner
  /** one save or status at a time per session: two saves must not interleave their merges */
  private readonly busy = new Map<string, Promise<unknown>>()

  constructor(
    private readonly db: Db,
    private readonly sessions: SessionService,
    private readonly sessionsRepo: SessionsRepo,
    private readonly engines: EngineRegistry,
    private readonly lifecycle: Lifecycle,
    private readonly bus: CoreBus,
    homeId: string,
  ) {
    this.runner = new WorkspaceRunner(homeId)
  }

  private serial<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const prev = this.busy.get(sessionId) ?? Promise.resolve()
    const next = prev.catch(() => undefined).then(work)
    this.busy.set(sessionId, next)
    void next.finally(() => {
      if (this.busy.get(sessionId) === next) this.busy.delete(sessionId)
    }).catch(() => undefined)
    return next
  }

  private workspaceOf(row: SessionRow) {
    if (!row.workspace) {
      throw new BerthError('refused', `session ${row.name} has no workspace folder (create it with --workspace DIR to save its work)`)
    }
    if (!(READABLE as readonly string[]).includes(row.state)) {
      if (row.state === 'finished') throw new BerthError('refused', `session ${row.name} finished; its workspace is gone`)
      throw new BerthError('conflict', `session ${row.name} is ${row.state}; try again when it is running or paused`, { state: row.state })
    }
    return row.workspace
  }

  async save(ref: string, message: string | undefined, op: string | undefined): Promise<Save> {
    const first = this.sessions.resolve(ref)
    return await this.serial(first.id, async () => {
      const row = this.sessions.resolve(first.id)
      const ws = this.workspaceOf(row)
      const engine = this.engines.get(row.server)
      const progress = progressOn(this.bus, op, row.id, row.server)
      const place = await this.runner.open(engine, row)
      try {
        const out = await saveWorkspace({
          row,
          ws,
          run: place.run,
          message,
          live: row.state === 'running',
          stage: (stage, msg) => progress.stage(stage, msg),
        })
        const savedAt = nowIso()
        if (out.changed || out.merge) {
          this.db
            .prepare('INSERT INTO workspace_saves(session_id, at, commit_id, merge_id, main_id, message) VALUES (?,?,?,?,?,?)')
            .run(row.id, savedAt, out.commit, out.merge, out.main, message ?? null)
        }
        // the session's base is now the main it was merged into: the next save compares with it
        const current = this.sessionsRepo.get(row.id)
        if (current?.workspace && current.workspace.base !== out.main) {
          this.sessionsRepo.patch(row.id, { workspace: { ...current.workspace, base: out.main } }, savedAt)
        }
        this.lifecycle.note(row.id, 'saved', { commit: out.commit, merge: out.merge, main: out.main, changed: out.changed, mainMoved: out.mainMoved })
        const fresh = this.sessionsRepo.get(row.id)
        if (fresh) this.bus.emit('session.changed', this.sessions.toModel(fresh))
        progress.done('save', out.merge ? `saved ${ws.branch} into ${ws.dir}'s main` : 'nothing new to save')
        return { dir: ws.dir, branch: ws.branch, ...out, savedAt }
      } finally {
        await place.close()
      }
    })
  }

  async status(ref: string): Promise<Status> {
    const row = this.sessions.resolve(ref)
    const ws = this.workspaceOf(row)
    const engine = this.engines.get(row.server)
    const place = await this.runner.open(engine, row)
    let out
    try {
      out = await place.run(STATUS_SCRIPT, { timeoutMs: 2 * 60_000, maxStdout: 16 << 20 })
    } finally {
      await place.close()
    }
    if (out.code !== 0) throw new BerthError('git', `could not read the workspace of ${row.name}: ${oneSentence(out.stderr || `exit ${out.code}`)}`)
    const st = parseStatus(out.stdout.toString())
    const last = this.db
      .prepare('SELECT at, commit_id, main_id FROM workspace_saves WHERE session_id = ? ORDER BY seq DESC LIMIT 1')
      .get(row.id) as { at: string; commit_id: string; main_id: string } | undefined
    return {
      dir: ws.dir,
      branch: ws.branch,
      saved: st.changes.length === 0 && st.unsavedCommits.length === 0,
      changes: st.changes,
      unsavedCommits: st.unsavedCommits,
      lastSave: last ? { at: last.at, commit: last.commit_id, main: last.main_id } : null,
    }
  }

  /** Finish destroys the workspace: refuse when it holds work that was never saved, unless forced. */
  async guardFinish(ref: string, force: boolean): Promise<void> {
    const row = this.sessions.resolve(ref)
    if (force || !row.workspace || !(READABLE as readonly string[]).includes(row.state)) return
    let st: Status
    try {
      st = await this.status(row.id)
    } catch (e) {
      const reason = reasonOf(e)
      throw new BerthError('refused', `cannot tell whether session ${row.name} has unsaved work (${reason}); finish with --force to destroy it anyway`)
    }
    if (st.saved) return
    const parts: string[] = []
    if (st.changes.length) parts.push(`${st.changes.length} changed file${st.changes.length === 1 ? '' : 's'} (${st.changes.map((l) => l.slice(3)).slice(0, 10).join(', ')}${st.changes.length > 10 ? ', ...' : ''})`)
    if (st.unsavedCommits.length) parts.push(`${st.unsavedCommits.length} commit${st.unsavedCommits.length === 1 ? '' : 's'} not in ${st.dir}'s main`)
    throw new BerthError(
      'refused',
      `session ${row.name} has unsaved work: ${parts.join(' and ')}; save it with \`berth save ${row.name}\` or finish with --force to lose it`,
      { changes: st.changes, unsavedCommits: st.unsavedCommits },
    )
  }
}
