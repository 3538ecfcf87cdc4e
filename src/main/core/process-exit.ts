// Whether a process still runs, by its pid: how a client knows that a daemon it asked to stop has
// let go of its home.

/** Signal 0 checks for the process without touching it (a pid we may not signal counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits for the process to exit; false when it still runs after timeoutMs. */
export async function processExited(pid: number, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (processAlive(pid)) {
    if (Date.now() >= deadline) return false
    await new Promise((r) => setTimeout(r, pollMs))
  }
  return true
}
