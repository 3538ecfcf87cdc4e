import { useState } from 'react'
import { useUi } from '../stores/app-stores'
import { Modal } from './Modal'

/** A few fields to fill before a verb (a fork's count, a snapshot's name). */
export function PromptDialog() {
  const prompt = useUi((s) => s.prompt)
  const reply = useUi((s) => s.reply)
  const [values, setValues] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  if (!prompt) return null
  const value = (name: string) => values[name] ?? prompt.fields.find((f) => f.name === name)?.initial ?? ''
  const close = () => {
    setValues({})
    setError(null)
    reply(null)
  }
  return (
    <Modal title={prompt.title} onClose={close}>
      {prompt.body && <p style={{ margin: 0 }}>{prompt.body}</p>}
      <form
        style={{ display: 'flex', flexDirection: 'column', gap: 12 }}
        onSubmit={(e) => {
          e.preventDefault()
          const all: Record<string, string> = {}
          for (const f of prompt.fields) {
            const v = value(f.name).trim()
            const problem = f.check?.(v) ?? null
            if (problem) return setError(problem)
            all[f.name] = v
          }
          setValues({})
          setError(null)
          reply(all)
        }}
      >
        {prompt.fields.map((f) => (
          <label key={f.name} className="field">
            {f.label}
            {f.hint && <span className="hint">{f.hint}</span>}
            <input aria-label={f.label} type={f.type ?? 'text'} placeholder={f.placeholder} value={value(f.name)} onChange={(e) => setValues({ ...values, [f.name]: e.target.value })} />
          </label>
        ))}
        {error && <div className="field-error" role="alert">{error}</div>}
        <div className="buttons">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary">
            {prompt.confirmLabel}
          </button>
        </div>
      </form>
    </Modal>
  )
}
