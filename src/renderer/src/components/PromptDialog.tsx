import { useRef, useState } from 'react'
import { describeError } from '../api/errors'
import { useStores, useUi } from '../stores/app-stores'
import type { WorkNote } from '../stores/ui'
import { Modal } from './Modal'
import { ProgressBar } from './ProgressBar'

/** Long work's progress in the dialog that started it: the core's bar, or a sentence until its first event. */
function WorkProgress({ note }: { note: WorkNote }) {
  return (
    <div className="dialog-progress" role="status" aria-live="polite">
      {typeof note === 'string' ? <span className="muted">{note}</span> : <ProgressBar progress={note} />}
    </div>
  )
}

/** A few fields to fill before a verb (a fork's count, a snapshot's name); long verbs show their progress here. */
export function PromptDialog() {
  const { ui } = useStores()
  const prompt = useUi((s) => s.prompt)
  const reply = useUi((s) => s.reply)
  const [values, setValues] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [note, setNote] = useState<WorkNote | null>(null)
  const hide = useRef<HTMLButtonElement>(null)
  if (!prompt) return null
  const busy = note !== null
  const value = (name: string) => values[name] ?? prompt.fields.find((f) => f.name === name)?.initial ?? ''
  const reset = () => {
    setValues({})
    setError(null)
    setNote(null)
  }
  const close = () => {
    // closing while work runs only hides it: the work goes on and its notice says how it ended
    reset()
    reply(null)
  }
  const run = async (all: Record<string, string>) => {
    if (!prompt.work) {
      reset()
      return reply(all)
    }
    setError(null)
    setNote('Starting…')
    // the focus stays in the dialog: on its one live button while the fields are locked
    setTimeout(() => hide.current?.focus(), 0)
    const mine = ui.getState().prompt
    // the dialog may have been hidden (and another opened) while the work ran: answer only its own
    const still = () => ui.getState().prompt === mine
    try {
      await prompt.work(all, (n) => still() && setNote(n))
      if (!still()) return
      reset()
      reply(all)
    } catch (e) {
      if (!still()) throw e
      setNote(null)
      setError(describeError(e).message)
    }
  }
  return (
    <Modal title={prompt.title} onClose={close}>
      {prompt.body && <p style={{ margin: 0 }}>{prompt.body}</p>}
      <form
        style={{ display: 'flex', flexDirection: 'column', gap: 12 }}
        onSubmit={(e) => {
          e.preventDefault()
          if (busy) return
          const all: Record<string, string> = {}
          for (const f of prompt.fields) {
            const v = value(f.name).trim()
            const problem = f.check?.(v) ?? null
            if (problem) return setError(problem)
            all[f.name] = v
          }
          void run(all)
        }}
      >
        {prompt.fields.map((f) => (
          <label key={f.name} className="field">
            {f.label}
            {f.hint && <span className="hint">{f.hint}</span>}
            <input aria-label={f.label} type={f.type ?? 'text'} placeholder={f.placeholder} value={value(f.name)} disabled={busy} onChange={(e) => setValues({ ...values, [f.name]: e.target.value })} />
          </label>
        ))}
        {note !== null && <WorkProgress note={note} />}
        {error && <div className="field-error" role="alert">{error}</div>}
        <div className="buttons">
          <button type="button" ref={hide} onClick={close}>
            {busy ? 'Hide' : 'Cancel'}
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {prompt.confirmLabel}
          </button>
        </div>
      </form>
    </Modal>
  )
}
