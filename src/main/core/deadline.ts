// Waiting on something slow with a limit: what it settles to, or a stand-in once the time is up.

/**
 * What `work` settles to, or `late()` once `ms` passed first; the work goes on unheard (its failure
 * is swallowed). A stand-in that throws fails this call (thrown inside the timer, it would end the process).
 */
export async function within<T, L>(work: Promise<T>, ms: number, late: () => L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late())
      } catch (e) {
        reject(e)
      }
    }, ms)
  })
  work.catch(() => undefined)
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}
