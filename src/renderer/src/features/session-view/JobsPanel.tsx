// A session's detached jobs (`berth exec --detach`) and, for the one picked, its log. Read while the
// session runs (a paused session's jobs are inside its checkpoint); refreshed every few seconds.
import { useEffect, useRef, useState } from 'react'
import type { Job } from '../../../../shared/contract'
import { clock } from '../../lib/format'
import { useStores } from '../../stores/app-stores'

const EVERY_MS = 3000
const KEEP_LINES = 500

export function jobLabel(j: Job): string {
  if (j.state === 'exited') return j.exitCode === null ? 'exited' : `exited ${j.exitCode}`
  return j.state
}

export function JobsPanel({ sessionId, running }: { sessionId: string; running: boolean }) {
  const stores = useStores()
  const [jobs, setJobs] = useState<Job[]>([])
  const [open, setOpen] = useState<string | null>(null)
  const [lines, setLines] = useState<string[]>([])
  const cursor = useRef<{ gen: number; offset: number } | undefined>(undefined)

  useEffect(() => {
    if (!running) return
    let gone = false
    const tick = async () => {
      const list = await stores.client.call('job.list', { id: sessionId }).catch(() => null)
      if (!gone && list) setJobs(list)
    }
    void tick()
    const t = setInterval(() => void tick(), EVERY_MS)
    return () => {
      gone = true
      clearInterval(t)
    }
  }, [stores, sessionId, running])

  useEffect(() => {
    cursor.current = undefined
    setLines([])
    if (!open || !running) return
    let gone = false
    const read = async () => {
      for (let i = 0; i < 20 && !gone; i++) {
        const r = await stores.client.call('job.logs', { id: sessionId, job: open, cursor: cursor.current }).catch(() => null)
        if (!r || gone) return
        cursor.current = r.cursor
        if (r.lines.length) setLines((old) => [...old, ...r.lines.map((l) => l.text)].slice(-KEEP_LINES))
        if (!r.more) return
      }
    }
    void read()
    const t = setInterval(() => void read(), EVERY_MS)
    return () => {
      gone = true
      clearInterval(t)
    }
  }, [stores, sessionId, open, running])

  if (jobs.length === 0) return null
  return (
    <>
      <h3>Jobs</h3>
      <ul className="events jobs" aria-label="session jobs">
        {jobs.map((j) => (
          <li key={j.id}>
            <button className="small" aria-expanded={open === j.id} onClick={() => setOpen(open === j.id ? null : j.id)}>
              {j.id}
            </button>
            <span className="what mono" title={j.command}>
              {jobLabel(j)} · {j.startedAt ? clock(j.startedAt) : '-'} · {j.command}
            </span>
          </li>
        ))}
      </ul>
      {open && (
        <pre className="mono" aria-label={`log of job ${open}`} style={{ margin: '0 14px', maxHeight: 240, overflow: 'auto', whiteSpace: 'pre-wrap' }}>
          {lines.length ? lines.join('\n') : running ? 'No output yet.' : 'Resume the session to read its jobs.'}
        </pre>
      )}
    </>
  )
}
