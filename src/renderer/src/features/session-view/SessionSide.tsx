import { useEffect, useState } from 'react'
import { dateTime } from '../../lib/format'
import { useStores, useWorkspace } from '../../stores/app-stores'
import type { ShownSession } from '../../stores/sessions'
import { saveSession } from '../sessions/session-actions'
import { EventsPanel } from './EventsPanel'
import { JobsPanel } from './JobsPanel'
import { ReplicaPanel } from './ReplicaPanel'

/** What the session is doing besides its terminals: previews, pausing rules, workspace, events. */
export function SessionSide({ session: s, id }: { session: ShownSession; id?: string }) {
  const stores = useStores()
  const ws = useWorkspace((w) => w.byId[s.id])
  const [idle, setIdle] = useState('')
  useEffect(() => {
    if (s.workspace) void stores.workspace.getState().refresh(s.id)
  }, [stores, s.id, s.workspace, s.state])

  const configure = async (patch: { autoPause?: boolean; idleAfterSeconds?: number | null }) => {
    try {
      await stores.sessions.getState().configure({ id: s.id, ...patch })
    } catch (e) {
      stores.ui.getState().fail(e)
    }
  }
  const live = s.state !== 'finished'

  return (
    <aside className="side" id={id} aria-label="session details">
      {s.previews && s.previews.length > 0 && (
        <section>
          <h2>Previews</h2>
          <div className="block">
            {s.previews.map((p) => (
              <a
                key={p.port}
                href={p.url}
                onClick={(e) => {
                  e.preventDefault()
                  void stores.client.app.openExternal(p.url)
                }}
              >
                {p.url}
              </a>
            ))}
          </div>
        </section>
      )}
      {live && (
        <section>
          <h2>Pausing</h2>
          <div className="block">
            <label className="choice">
              <input type="checkbox" checked={s.autoPause} onChange={(e) => void configure({ autoPause: e.target.checked })} />
              <span>
                Pauses itself when idle, and with the “marked” sleep policy
              </span>
            </label>
            <form
              className="row"
              style={{ display: 'flex', gap: 6, alignItems: 'center' }}
              onSubmit={(e) => {
                e.preventDefault()
                const n = Number(idle)
                if (idle.trim() === '') void configure({ idleAfterSeconds: null })
                else if (Number.isFinite(n) && n >= 0 && n <= 7 * 24 * 60) void configure({ idleAfterSeconds: Math.round(n * 60) })
                setIdle('')
              }}
            >
              <input aria-label="idle minutes for this session" placeholder={s.activity?.idleAfterSeconds ? `${Math.round(s.activity.idleAfterSeconds / 60)} min` : 'global'} value={idle} onChange={(e) => setIdle(e.target.value)} style={{ width: 90 }} />
              <button className="small" type="submit">
                Set idle minutes
              </button>
            </form>
          </div>
        </section>
      )}
      {s.workspace && (
        <section>
          <h2>Workspace</h2>
          <div className="block">
            <span className="mono">
              {s.workspace.dir} · {s.workspace.branch}
            </span>
            {ws?.status ? (
              ws.status.saved ? (
                <span>Everything is saved{ws.status.lastSave ? `, last on ${dateTime(ws.status.lastSave.at)}` : ''}.</span>
              ) : (
                <>
                  <span className="unsaved">
                    ● {ws.status.changes.length} uncommitted change(s), {ws.status.unsavedCommits.length} commit(s) not in main
                  </span>
                  <ul className="mono">
                    {ws.status.changes.slice(0, 8).map((c) => (
                      <li key={c}>{c}</li>
                    ))}
                  </ul>
                </>
              )
            ) : (
              <span className="muted">{s.state === 'running' || s.state === 'paused' ? 'Checking…' : `Saved ${dateTime(s.savedAt)}`}</span>
            )}
            {(s.state === 'running' || s.state === 'paused') && (
              <button className="small" onClick={() => void saveSession(stores, s)}>
                Save to the workspace
              </button>
            )}
          </div>
        </section>
      )}
      {live && s.replica && <ReplicaPanel replica={s.replica} />}
      <section>
        <JobsPanel sessionId={s.id} running={s.state === 'running'} />
      </section>
      <section>
        <EventsPanel sessionId={s.id} />
      </section>
    </aside>
  )
}
