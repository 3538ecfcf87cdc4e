import type { Progress } from '../../../shared/models'
import { bytes } from '../lib/format'

/** "45% · 120 MiB of 260 MiB · 50 MiB/s": what is done against what is expected, in the CLI's units. */
export function progressFigures(p: Pick<Progress, 'bytes' | 'total' | 'rate'>): string {
  const pct = percentDone(p)
  const amount = p.bytes ? (p.total ? `${bytes(p.bytes)} of ${bytes(p.total)}` : bytes(p.bytes)) : p.total ? `${bytes(p.total)} expected` : null
  return [pct !== null ? `${pct}%` : null, amount, p.rate ? `${bytes(p.rate)}/s` : null].filter(Boolean).join(' · ')
}

/** A share once some of the total is done (nothing done yet of a known total: "X expected", the bar still moving). */
const percentDone = (p: Pick<Progress, 'bytes' | 'total'>): number | null => (p.total && p.bytes ? Math.min(100, Math.round((p.bytes / p.total) * 100)) : null)

export function ProgressBar({ progress }: { progress: Progress }) {
  const pct = percentDone(progress)
  const detail = progressFigures(progress)
  const text = `${progress.message}${detail ? ` — ${detail}` : ''}`
  return (
    <div className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct ?? undefined} aria-label={progress.message} aria-valuetext={text} data-stage={progress.stage}>
      <div className={`bar${pct === null ? ' indeterminate' : ''}`}>
        <div style={{ width: `${pct ?? 0}%` }} />
      </div>
      <span className="label" title={text}>
        {text}
      </span>
    </div>
  )
}
