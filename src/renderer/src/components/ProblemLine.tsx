import { describeError, type Problem } from '../api/errors'
import { useUi } from '../stores/app-stores'
import { parseRoute } from '../lib/router'

/** An error as one sentence with the action that fixes it. */
export function ProblemLine({ error, problem, onRetry }: { error?: unknown; problem?: Problem; onRetry?: () => void }) {
  const navigate = useUi((s) => s.navigate)
  const p = problem ?? describeError(error)
  return (
    <div className="problem" role="alert">
      <span className="msg">{p.message}</span>
      {p.action?.retry && onRetry && (
        <button className="small" onClick={onRetry}>
          {p.action.label}
        </button>
      )}
      {p.action?.route && (
        <button className="small" onClick={() => navigate(parseRoute(p.action!.route!))}>
          {p.action.label}
        </button>
      )}
    </div>
  )
}
