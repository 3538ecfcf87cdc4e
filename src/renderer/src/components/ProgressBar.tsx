import type { Progress } from '../../../shared/models'
import { bytes } from '../lib/format'

export function ProgressBar({ progress }: { progress: Progress }) {
  const pct = progress.total ? Math.min(100, Math.round((progress.bytes / progress.total) * 100)) : null
  const detail = [pct !== null ? `${pct}%` : null, progress.bytes ? bytes(progress.bytes) : null, progress.rate ? `${bytes(progress.rate)}/s` : null].filter(Boolean).join(' · ')
  return (
    <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct ?? undefined} aria-label={progress.message}>
      <div className={`bar${pct === null ? ' indeterminate' : ''}`}>
        <div style={{ width: `${pct ?? 0}%` }} />
      </div>
      <span className="label">
        {progress.message}
        {detail && ` — ${detail}`}
      </span>
    </div>
  )
}
