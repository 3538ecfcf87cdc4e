// Berth's log files: $BERTH_HOME/logs/NAME.log, rotated at 5 MiB into NAME.1.log ... NAME.4.log
// (the last 5 x 5 MiB kept). Written synchronously, so the lines before a crash or an exit are on
// disk; a log that cannot be written (a full disk) never stops the process it logs for.
import { appendFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ensurePrivateDir, ensurePrivateFile } from '../durable-file'

export const LOG_FILE_BYTES = 5 * 1024 * 1024
export const LOG_FILES = 5

export const logsDir = (home: string) => join(home, 'logs')

export class RotatingLog {
  readonly path: string
  private size: number

  constructor(
    readonly dir: string,
    readonly name: string,
    private readonly maxBytes = LOG_FILE_BYTES,
    private readonly keep = LOG_FILES,
  ) {
    ensurePrivateDir(dir)
    this.path = join(dir, `${name}.log`)
    try {
      this.size = statSync(this.path).size
      // a log another tool (or an older Berth) left readable is narrowed like every file of the home
      ensurePrivateFile(this.path)
    } catch {
      this.size = 0
    }
  }

  private older(n: number): string {
    return join(this.dir, `${this.name}.${n}.log`)
  }

  write(text: string): void {
    const bytes = Buffer.byteLength(text)
    try {
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate()
      appendFileSync(this.path, text, { mode: 0o600 })
      this.size += bytes
    } catch {
      // a log is never worth failing the work it describes
    }
  }

  private rotate(): void {
    rmSync(this.older(this.keep - 1), { force: true })
    for (let n = this.keep - 2; n >= 1; n--) {
      try {
        renameSync(this.older(n), this.older(n + 1))
      } catch {
        // not there yet
      }
    }
    renameSync(this.path, this.older(1))
    this.size = 0
  }
}

/** Everything this process writes to stderr also goes to the log (every domain logs to stderr). */
export function teeStderr(log: RotatingLog, alsoToStderr: boolean): void {
  const original = process.stderr.write.bind(process.stderr)
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    log.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
    if (alsoToStderr) return (original as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest)
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined
    cb?.()
    return true
  }) as typeof process.stderr.write
}
