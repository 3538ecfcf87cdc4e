// A session's views are tmux sessions inside its container; tests drive them through `berth exec`.
import { expect } from 'vitest'
import { sleep, until, type BerthHome } from './berth'

/** Starts a tmux view running an interactive shell, and a counter loop in a second view. */
export async function startViews(berth: BerthHome, id: string, opts: { counter?: boolean } = {}): Promise<void> {
  const script = [
    'tmux new-session -d -s work -x 120 -y 30',
    opts.counter ? `tmux new-session -d -s counter 'i=0; while :; do echo $i > /tmp/counter; i=$((i+1)); sleep 0.2; done'` : 'true',
  ].join(' && ')
  const r = await berth.run(['exec', id, '--', 'sh', '-c', script])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
}

/** Types a line into the work view. */
export async function typeInView(berth: BerthHome, id: string, line: string): Promise<void> {
  const r = await berth.run(['exec', id, '--', 'tmux', 'send-keys', '-t', 'work', line, 'Enter'])
  expect(r.code).toBe(0)
}

/** Waits until the work view shows `text`, and returns the pane. */
export async function viewShows(berth: BerthHome, id: string, text: string, timeoutMs = 15_000): Promise<string> {
  return await until(
    async () => {
      const r = await berth.run(['exec', id, '--', 'tmux', 'capture-pane', '-p', '-t', 'work'])
      return r.code === 0 && r.stdout.includes(text) ? r.stdout : undefined
    },
    `the view to show ${text}`,
    timeoutMs,
  )
}

/** The counter loop's value (read again if it caught the loop rewriting its file). */
export async function counter(berth: BerthHome, id: string): Promise<number> {
  const read = await until(async () => {
    const r = await berth.run(['exec', id, '--', 'cat', '/tmp/counter'])
    expect(r.code).toBe(0)
    const v = r.stdout.trim()
    return /^\d+$/.test(v) ? { value: Number(v) } : undefined
  }, 'the counter to be readable')
  return read.value
}

/** Waits until the counter loop has counted to at least `n`. */
export async function counterAtLeast(berth: BerthHome, id: string, n: number): Promise<number> {
  return await until(async () => {
    const v = await counter(berth, id).catch(() => 0)
    return v >= n ? v : undefined
  }, `the counter to reach ${n}`)
}

export { sleep }

/** Sets a shell variable inside a tmux session of the session (memory only: never on disk). */
export async function setTmuxVariable(berth: BerthHome, id: string, value: string): Promise<void> {
  const r = await berth.run(['exec', id, '--', 'sh', '-c', `tmux new-session -d -s work && tmux send-keys -t work 'export KEPT=${value}' Enter && sleep 0.5`])
  expect(r.code).toBe(0)
}

/** Reads it back through the same tmux shell (a cold boot would have no tmux server at all). */
export async function readTmuxVariable(berth: BerthHome, id: string): Promise<string> {
  const r = await berth.run(['exec', id, '--', 'sh', '-c', `tmux send-keys -t work 'echo "v=$KEPT" > /tmp/kept' Enter; sleep 0.7; cat /tmp/kept`])
  return r.stdout.trim()
}
