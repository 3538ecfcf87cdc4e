// A restore the core makes through the Docker API holds the server's CRIU lock as the server's own
// restores and dumps do (lazy.sh, lazy_hold_off): a lazy resume puts its options in the machine's
// CRIU config (/etc/criu/runc.conf) until its own CRIU has read them, and a restore in full that ran
// then would read them too (and hand its memory to that session's page server). The lock is held by
// the server script's `criu-hold`, streamed: it answers once no lazy config is in place, and lets go
// when its stdin closes (the restore returned) or after its own limit, whatever happens here.
import { oneSentence } from '../../../shared/errors'
import type { ShellProcess } from '../engines/engine'
import type { ServerRunner } from '../engines/server-script/server-runner'

/** How long the hold may last on the server, whatever happens to the core (a restore takes less). */
const HOLD_LIMIT_S = 180
/** How long the core waits for the answer: the server waits 30 s at most for a lazy restore's config to go. */
const ANSWER_MS = 40_000

export type CriuHold = { release(): void } | { why: string }

/** Holds the lock on the runner's server; `why` when it could not be (the restore must not go ahead). */
export async function holdCriu(runner: ServerRunner): Promise<CriuHold> {
  let p: ShellProcess
  try {
    p = await runner.stream(['criu-hold', String(HOLD_LIMIT_S)])
  } catch (e) {
    return { why: oneSentence((e as Error).message) }
  }
  const release = () => {
    p.stdin.end()
    // the process exits by itself once its stdin is closed: only one that does not is ended
    const t = setTimeout(() => p.kill(), 5_000)
    void p.exit.finally(() => clearTimeout(t))
  }
  p.stdin.on('error', () => undefined)
  p.stderr.resume()
  const answer = await new Promise<string>((resolve) => {
    let out = ''
    const timer = setTimeout(() => resolve(`the server did not answer within ${ANSWER_MS / 1000} s`), ANSWER_MS)
    const done = (v: string) => {
      clearTimeout(timer)
      resolve(v)
    }
    p.stdout.setEncoding('utf8')
    p.stdout.on('data', (d: string) => {
      out += d
      const line = /^(held 1|why .*)$/m.exec(out)?.[1]
      if (line) done(line)
    })
    void p.exit.then((code) => done(/^why (.*)$/m.exec(out)?.[1] ?? `the hold ended before it answered (${code === null ? p.ending() : `exit ${code}`})`))
  })
  if (answer === 'held 1') return { release }
  release()
  return { why: answer.replace(/^why /, '') }
}

/** Runs `restore` while the lock is held; throws (with why) when it cannot be. */
export async function whileHeld<T>(runner: ServerRunner, restore: () => Promise<T>): Promise<T> {
  const h = await holdCriu(runner)
  if ('why' in h) throw new Error(`the restore could not hold CRIU's configuration: ${h.why}`)
  try {
    return await restore()
  } finally {
    h.release()
  }
}
