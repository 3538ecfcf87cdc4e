import { memo } from 'react'
import type { Progress, Session } from '../../../../shared/models'
import { ProgressBar } from '../../components/ProgressBar'
import { StateBadge } from '../../components/StateBadge'
import { age, bytes, money, percent } from '../../lib/format'
import { hasUnsavedWork, isLive } from './session-actions'

export interface RowActions {
  open(s: Session): void
  finish(s: Session): void
  select(id: string): void
}

export const SessionRow = memo(function SessionRow({
  session: s,
  progress,
  selected,
  now,
  actions,
}: {
  session: Session
  progress: Progress | undefined
  selected: boolean
  now: number
  actions: RowActions
}) {
  return (
    <tr className={selected ? 'selected' : undefined} data-session={s.id} data-state={s.state} onClick={() => actions.select(s.id)} onDoubleClick={() => actions.open(s)}>
      <td className="name-cell">
        <a
          href={`#/sessions/${encodeURIComponent(s.id)}`}
          onClick={(e) => {
            e.preventDefault()
            actions.open(s)
          }}
        >
          {s.name}
        </a>
        <div className="sub mono">{s.image}</div>
      </td>
      <td>{s.server}</td>
      <td>
        {progress && (s.state === 'moving' || s.state === 'creating' || s.state === 'resuming' || s.state === 'pausing') ? (
          <>
            <StateBadge session={s} />
            <ProgressBar progress={progress} />
          </>
        ) : (
          <StateBadge session={s} />
        )}
        {s.state === 'failed' && s.failure && <div className="failure">{s.failure}</div>}
      </td>
      <td title={s.createdAt}>{age(s.createdAt, now)}</td>
      <td className="meter">
        {s.meter ? (
          <>
            {percent(s.meter.cpuPercent)} cpu · {bytes(s.meter.memoryBytes)} · {money(s.meter.cost)}
          </>
        ) : (
          '–'
        )}
      </td>
      <td>{hasUnsavedWork(s) && <span className="unsaved" title="the workspace has work that was never saved">● unsaved</span>}</td>
      <td className="actions">
        <button className="small" onClick={() => actions.open(s)}>
          Open
        </button>
        {isLive(s) && s.state !== 'finishing' && s.state !== 'creating' && (
          <button className="small danger" onClick={() => actions.finish(s)}>
            Finish
          </button>
        )}
      </td>
    </tr>
  )
})
