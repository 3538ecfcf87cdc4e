import { useUi } from '../stores/app-stores'
import { parseRoute } from '../lib/router'

export function Notices() {
  const notices = useUi((s) => s.notices)
  const dismiss = useUi((s) => s.dismiss)
  const navigate = useUi((s) => s.navigate)
  if (notices.length === 0) return null
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <span className="msg">{n.message}</span>
          {n.action?.retry && n.retry && (
            <button
              className="small"
              onClick={() => {
                dismiss(n.id)
                n.retry!()
              }}
            >
              {n.action.label}
            </button>
          )}
          {n.action?.route && (
            <button
              className="small"
              onClick={() => {
                dismiss(n.id)
                navigate(parseRoute(n.action!.route!))
              }}
            >
              {n.action.label}
            </button>
          )}
          <button className="link" aria-label="dismiss" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
