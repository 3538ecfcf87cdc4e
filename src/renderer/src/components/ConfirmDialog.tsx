import { useState } from 'react'
import { useUi } from '../stores/app-stores'
import { Modal } from './Modal'

export function ConfirmDialog() {
  const confirm = useUi((s) => s.confirm)
  const answer = useUi((s) => s.answer)
  const [typed, setTyped] = useState('')
  if (!confirm) return null
  const blocked = !!confirm.typeToConfirm && typed !== confirm.typeToConfirm
  const close = () => {
    setTyped('')
    answer(false)
  }
  return (
    <Modal title={confirm.title} onClose={close}>
      <p>{confirm.body}</p>
      {confirm.typeToConfirm && (
        <label className="field">
          Type <code>{confirm.typeToConfirm}</code> to confirm
          <input value={typed} onChange={(e) => setTyped(e.target.value)} aria-label="confirmation" />
        </label>
      )}
      <form
        className="buttons"
        onSubmit={(e) => {
          e.preventDefault()
          if (blocked) return
          setTyped('')
          answer(true)
        }}
      >
        <button type="button" onClick={close}>
          Cancel
        </button>
        <button type="submit" className={confirm.danger ? 'danger' : 'primary'} disabled={blocked}>
          {confirm.confirmLabel}
        </button>
      </form>
    </Modal>
  )
}
