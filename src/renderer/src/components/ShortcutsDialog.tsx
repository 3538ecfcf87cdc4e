import { useStores } from '../stores/app-stores'
import { Modal } from './Modal'

export const SHORTCUTS: Array<[string, string]> = [
  ['Alt Shift 1 · 2 · 3 · 4', 'Sessions · Snapshots · Servers · Settings'],
  ['n', 'New session'],
  ['/', 'Filter the sessions'],
  ['j / k or ↓ / ↑', 'Move through the sessions'],
  ['Enter', 'Open the selected session'],
  ['p', 'Pause or resume the selected session'],
  ['f', 'Finish the selected session'],
  ['Alt Shift T', 'New terminal'],
  ['Alt Shift W', 'Close the terminal tab (its view keeps running)'],
  ['Alt Shift ] / [', 'Next / previous terminal'],
  ['Ctrl Shift C / V', 'Copy / paste in a terminal'],
  ['?', 'This list'],
]

export function ShortcutsDialog() {
  const { ui } = useStores()
  const close = () => ui.getState().openDialog(null)
  return (
    <Modal title="Keyboard shortcuts" onClose={close}>
      <div className="shortcuts">
        {SHORTCUTS.map(([k, what]) => (
          <div key={k} style={{ display: 'contents' }}>
            <kbd>{k}</kbd>
            <span>{what}</span>
          </div>
        ))}
      </div>
      <div className="buttons">
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
    </Modal>
  )
}
