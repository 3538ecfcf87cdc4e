// The order sessions come back in when several resume at once (the machine wakes): the one the
// user looks at (its terminal open or typed in last, its ssh address used last) first and alone,
// so no other restore competes with it for the disk and the cores; the others after it, side by
// side. A session never used since Berth started has no claim to go first.

export interface WakeCandidate {
  id: string
  /** when a person last used it (LastUsed), null if not since Berth started */
  lastUsedMs: number | null
}

export interface WakeOrder {
  /** resumed alone, before any other */
  first: string | null
  /** resumed once the first runs, side by side, in the order given */
  rest: string[]
}

export function wakeOrder(sessions: WakeCandidate[]): WakeOrder {
  let first: WakeCandidate | null = null
  for (const s of sessions) if ((s.lastUsedMs ?? 0) > (first?.lastUsedMs ?? 0)) first = s
  return { first: first?.id ?? null, rest: sessions.filter((s) => s !== first).map((s) => s.id) }
}

/**
 * Runs `resume` for every session in wake order: the first until it answers (it runs, or could not
 * come back: a failure holds no one), then the rest together. Answers in the order given.
 */
export async function resumeInWakeOrder<T>(sessions: WakeCandidate[], resume: (id: string) => Promise<T>): Promise<Map<string, PromiseSettledResult<T>>> {
  const { first, rest } = wakeOrder(sessions)
  const settled = new Map<string, PromiseSettledResult<T>>()
  const one = async (id: string) => {
    settled.set(
      id,
      await resume(id).then(
        (value): PromiseSettledResult<T> => ({ status: 'fulfilled', value }),
        (reason: unknown): PromiseSettledResult<T> => ({ status: 'rejected', reason }),
      ),
    )
  }
  if (first) await one(first)
  await Promise.all(rest.map(one))
  return new Map(sessions.map((s) => [s.id, settled.get(s.id)!]))
}
