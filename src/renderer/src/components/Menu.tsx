import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react'

export interface MenuItem {
  label: string
  /** a verb that returns its promise lets the caller act once it is done (the focus back to the terminal) */
  run(): void | Promise<void>
  danger?: boolean
  disabled?: boolean
}

/**
 * A small menu of more verbs behind one button (the WAI-ARIA menu button pattern): the arrow keys,
 * Home and End move through it, Escape closes it and gives the focus back to its button, a click
 * elsewhere closes it.
 */
export function Menu({ label, items }: { label: string; items: MenuItem[] }) {
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLSpanElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!open) return
    const close = (e: Event) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false)
    }
    window.addEventListener('mousedown', close)
    ref.current?.querySelector<HTMLButtonElement>('[role=menuitem]:not(:disabled)')?.focus()
    return () => window.removeEventListener('mousedown', close)
  }, [open])
  if (items.length === 0) return null
  const onKey = (e: ReactKeyboardEvent) => {
    const all = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role=menuitem]:not(:disabled)') ?? [])]
    const at = all.indexOf(document.activeElement as HTMLButtonElement)
    const to = (i: number) => {
      e.preventDefault()
      all[(i + all.length) % all.length]?.focus()
    }
    if (e.key === 'ArrowDown') to(at + 1)
    else if (e.key === 'ArrowUp') to(at - 1)
    else if (e.key === 'Home') to(0)
    else if (e.key === 'End') to(all.length - 1)
    else if (e.key === 'Escape' || e.key === 'Tab') {
      if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        button.current?.focus()
      }
      setOpen(false)
    }
  }
  return (
    <span className="menu" ref={ref} onKeyDown={open ? onKey : undefined}>
      <button
        ref={button}
        className="small"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={label}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => {
          if (!open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            e.preventDefault()
            setOpen(true)
          }
        }}
      >
        ⋯
      </button>
      {open && (
        <span className="menu-items" role="menu" aria-label={label}>
          {items.map((i) => (
            <button
              key={i.label}
              role="menuitem"
              tabIndex={-1}
              className={i.danger ? 'danger' : undefined}
              disabled={i.disabled}
              onClick={() => {
                setOpen(false)
                void i.run()
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
