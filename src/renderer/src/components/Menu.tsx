import { useEffect, useRef, useState } from 'react'

export interface MenuItem {
  label: string
  run(): void
  danger?: boolean
  disabled?: boolean
}

/** A small menu of more verbs behind one button; Escape or a click elsewhere closes it. */
export function Menu({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLSpanElement>(null)
  useEffect(() => {
    if (!open) return
    const close = (e: Event) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !ref.current?.contains(e.target as Node)) setOpen(false)
    }
    window.addEventListener('mousedown', close)
    window.addEventListener('keydown', close)
    ref.current?.querySelector<HTMLButtonElement>('[role=menuitem]')?.focus()
    return () => {
      window.removeEventListener('mousedown', close)
      window.removeEventListener('keydown', close)
    }
  }, [open])
  if (items.length === 0) return null
  return (
    <span className="menu" ref={ref}>
      <button className="small" aria-haspopup="menu" aria-expanded={open} aria-label={label} onClick={() => setOpen(!open)}>
        ⋯
      </button>
      {open && (
        <span className="menu-items" role="menu">
          {items.map((i) => (
            <button
              key={i.label}
              role="menuitem"
              className={i.danger ? 'danger' : undefined}
              disabled={i.disabled}
              onClick={() => {
                setOpen(false)
                i.run()
              }}
            >
              {i.label}
            </button>
          ))}
        </span>
      )}
    </span>
  )
}
