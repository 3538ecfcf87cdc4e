import { useEffect, useState } from 'react'

/** The current time, refreshed every `everyMs` (ages and idle timers stay true, to the second, without re-fetching). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(t)
  }, [everyMs])
  return now
}

/** true when the keyboard event started in a field the user types into (or a terminal). */
export function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el || !el.tagName) return false
  if (el.isContentEditable) return true
  if (el.closest?.('.xterm')) return true
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)
}

/** true when the event started on a control that answers Enter and the arrow keys itself (a button, a link, a menu's item, a tab). */
export function onControl(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  return !!el?.closest?.('button, a[href], select, [role=menuitem], [role=tab], [role=menu]')
}

/** Whether a CSS media query matches now, kept up to date (the layout for small windows). */
export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => typeof window.matchMedia === 'function' && window.matchMedia(query).matches)
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return
    const m = window.matchMedia(query)
    const on = () => setMatches(m.matches)
    on()
    m.addEventListener('change', on)
    return () => m.removeEventListener('change', on)
  }, [query])
  return matches
}

/** The width below which the layout folds (styles.css has the same breakpoint). */
export const NARROW = '(max-width: 1000px)'
