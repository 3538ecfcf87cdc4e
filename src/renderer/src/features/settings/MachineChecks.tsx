import { useCallback, useEffect, useState } from 'react'
import type { CallResult } from '../../../../shared/contract'
import { ProblemLine } from '../../components/ProblemLine'
import { useStores } from '../../stores/app-stores'

const LABEL = { ok: 'ok', warn: 'check', fail: 'problem' } as const

/** What `berth doctor` finds on this machine: shown on first run and in Settings. */
export function MachineChecks({ title = 'This machine' }: { title?: string }) {
  const stores = useStores()
  const [report, setReport] = useState<CallResult<'doctor.report'> | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [checking, setChecking] = useState(false)
  const check = useCallback(() => {
    setChecking(true)
    stores.client.call('doctor.report', {}).then(
      (r) => {
        setReport(r)
        setError(null)
      },
      (e: unknown) => setError(e),
    ).finally(() => setChecking(false))
  }, [stores])
  useEffect(check, [check])
  return (
    <section className="machine-checks" aria-label={title}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h2>{title}</h2>
        <button className="small" onClick={check} disabled={checking}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {error ? <ProblemLine error={error} onRetry={check} /> : null}
      {!report && !error ? <p className="muted">Checking this machine…</p> : null}
      {report && (
        <ul className="checks">
          {report.checks.map((c) => (
            <li key={c.id} className={`check check-${c.status}`}>
              <span className={`badge check-${c.status}`}>{LABEL[c.status]}</span>
              <span>
                <strong>{c.title}</strong> <span className="check-summary">{c.summary}</span>
                {c.fix ? <small className="check-fix">{c.fix}</small> : null}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
