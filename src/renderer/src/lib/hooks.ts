import { useEffect, useState } from 'react'

/** The current time, refreshed every `everyMs` (ages in lists stay true without re-fetching). */
export function useNow(everyMs = 30_000): number {
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
