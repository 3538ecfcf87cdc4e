import { memo } from 'react'
import type { Progress, SessionSummary } from '../../../../shared/models'
import { Menu } from '../../components/Menu'
import { ProgressBar } from '../../components/ProgressBar'
import { StateBadge } from '../../components/StateBadge'
import { age, imageLabel, meterLine } from '../../lib/format'
import type { SessionActions } from './session-actions'

export interface RowActions {
  open(s: SessionSummary): void
  select(id: string): void
  verbs(s: SessionSummary): SessionActions
}

const WORKING = ['moving', 'creating', 'resuming', 'pausing', 'restarting']

export const SessionRow = memo(function SessionRow({
  index,
  measure,
  session: s,
  progress,
  selected,
  unsaved,
  now,
  actions,
}: {
  /** the row's place in the list (aria-rowindex; the list measures rows by it) */
  index: number
  measure: ((row: HTMLTableRowElement | null) => void) | undefined
  session: SessionSummary
  progress: Progress | undefined
  selected: boolean
  /** true: work never saved; undefined: not known (yet) */
  unsaved: boolean | undefined
  now: number
  actions: RowActions
}) {
  const verbs = actions.verbs(s)
  return (
    <tr ref={measure} data-index={index} aria-rowindex={index + 2} className={selected ? 'selected' : undefined} data-session={s.id} data-state={s.state} onClick={() => actions.select(s.id)} onDoubleClick={() => actions.open(s)}>
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
        <div className="sub mono" title={s.image}>
          {imageLabel(s.image)}
        </div>
      </td>
      <td className="wide-only">{s.server}</td>
      <td>
        <StateBadge session={s} />
        {progress && WORKING.includes(s.state) && <ProgressBar progress={progress} />}
        {s.state === 'failed' && s.failure && <div className="failure">{s.failure}</div>}
      </td>
      <td className="wide-only" title={s.createdAt}>{age(s.createdAt, now)}</td>
      <td className="meter wide-only">
        {s.meter ? meterLine(s.meter, s.state) : '–'}
      </td>
      <td>{unsaved && <span className="unsaved" title="the workspace has work that was never saved">● unsaved</span>}</td>
      <td className="actions" onClick={(e) => e.stopPropagation()}>
        <button className="small" onClick={() => actions.open(s)}>
          Open
        </button>
        {verbs.primary && (
          <button className="small" onClick={verbs.primary.run}>
            {verbs.primary.label}
          </button>
        )}
        <Menu label={`more for ${s.name}`} items={verbs.more} />
      </td>
    </tr>
  )
})
