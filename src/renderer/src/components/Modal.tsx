import { useEffect, useRef, type ReactNode } from 'react'

const FOCUSABLE = 'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])'

/** A dialog: Escape or a click outside closes it; focus moves into it, stays inside, and goes back where it was. */
export function Modal({ title, onClose, children, labelledBy = 'modal-title' }: { title: string; onClose(): void; children: ReactNode; labelledBy?: string }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null
    const first = ref.current?.querySelector<HTMLElement>('input, select, textarea, button.primary, button')
    // (a dialog with nothing to act on holds the focus itself)
    ;(first ?? ref.current)?.focus()
    return () => {
      // back to what had the focus (a menu's button, a row), if it is still on the page
      if (before?.isConnected && !ref.current?.contains(document.activeElement)) before.focus()
    }
  }, [])
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation()
        onClose()
      } else if (e.key === 'Tab' && ref.current) {
        // Tab and Shift+Tab go round inside the dialog
        const all = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)]
        if (all.length === 0) {
          e.preventDefault()
          ref.current.focus()
          return
        }
        const first = all[0]!
        const last = all[all.length - 1]!
        const inside = ref.current.contains(document.activeElement)
        if (e.shiftKey && (document.activeElement === first || !inside)) {
          e.preventDefault()
          last.focus()
        } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
          e.preventDefault()
          first.focus()
        }
      }
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [onClose])
  return (
    <div className="backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby={labelledBy} ref={ref} tabIndex={-1}>
        <h2 id={labelledBy}>{title}</h2>
        {children}
      </div>
    </div>
  )
}
