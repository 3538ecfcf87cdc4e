// A CRIU a test can break: a folder first on a private engine's PATH, whose `criu` is what that
// engine's runc runs (the means lid-close.test.ts breaks CRIU by). A test makes it hang, or kills
// it half way through a dump, without touching the shared engines' CRIU.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { testHost } from './testhost'

export class CriuSwitch {
  readonly dir = mkdtempSync('/tmp/berth-criu-')

  /** the PATH a PrivateDockerd is given so that its runc finds this criu first */
  get path(): string {
    return `${this.dir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`
  }

  set(body: string): void {
    writeFileSync(join(this.dir, 'criu'), `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  }

  works(): void {
    this.set(`exec ${testHost().criu} "$@"`)
  }

  /** a CRIU that never returns */
  hangs(): void {
    this.set('exec sleep 3600')
  }

  /** CRIU starts, then is killed (SIGKILL) part way through its work */
  diesAfter(ms: number): void {
    this.set(`${testHost().criu} "$@" & c=$!\nsleep ${ms / 1000}\nkill -9 $c\nwait $c`)
  }

  /**
   * CRIU works, but its page server (`criu lazy-pages`, a lazy resume's) stops (SIGSTOP) as soon as
   * it listens: the restore goes through and the session runs, yet no page is served until the test
   * lets it go on (SIGCONT) or kills it. Its pid is in lazyPagesPid().
   */
  holdsPages(): void {
    this.set(
      [
        'if [ "$1" = lazy-pages ]; then',
        `  echo $$ > ${this.dir}/lazy-pages.pid`,
        // the daemon listens in its working folder (lazy.sh starts it there); $$ is the daemon once exec'd
        '  (i=0; while [ ! -S lazy-pages.socket ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done; kill -STOP $$) </dev/null >/dev/null 2>&1 &',
        'fi',
        `exec ${testHost().criu} "$@"`,
      ].join('\n'),
    )
  }

  /** the pid of the last page server started through holdsPages() */
  lazyPagesPid(): number {
    return Number(readFileSync(join(this.dir, 'lazy-pages.pid'), 'utf8').trim())
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** Processes still checkpointing the container (runc checkpoint and the CRIU under it). */
export function checkpointers(containerId: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
      if (cmd.includes(containerId) && /checkpoint/.test(cmd)) found.push(`${pid} ${cmd.slice(0, 80)}`)
    } catch {
      // gone
    }
  }
  return found
}
