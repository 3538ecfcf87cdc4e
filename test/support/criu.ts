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
   * CRIU works, but its page server (`criu lazy-pages`, a lazy resume's) is stopped (SIGSTOP) and
   * serves nothing more until the test lets it go on (SIGCONT) or kills it: `at-once`, as soon as it
   * listens (the restore itself then waits for the pages it needs); `after-restore`, once the
   * restore has finished (the session runs, most of its memory still in the checkpoint). Its pid is
   * in lazyPagesPid().
   */
  holdsPages(when: 'at-once' | 'after-restore'): void {
    // the daemon runs in its working folder (lazy.sh starts it there), where CRIU's restore logs too
    const ready = when === 'at-once' ? '[ -S lazy-pages.socket ]' : "grep -q 'Restore finished successfully' restore.log 2>/dev/null"
    this.set(
      [
        'if [ "$1" = lazy-pages ]; then',
        `  echo $$ > ${this.dir}/lazy-pages.pid`,
        // $$ is the daemon itself once this script has exec'd it
        `  (i=0; until ${ready} || [ $i -ge 6000 ]; do sleep 0.005; i=$((i+1)); done; kill -STOP $$) </dev/null >/dev/null 2>&1 &`,
        'fi',
        `exec ${testHost().criu} "$@"`,
      ].join('\n'),
    )
  }

  /**
   * CRIU works, but the first one runc starts to restore container `id` (full id) waits `ms` before
   * it starts: a lazy resume of that container keeps its options in CRIU's config that long.
   */
  slowToStartFor(id: string, ms: number): void {
    const once = join(this.dir, 'slowed')
    rmSync(once, { force: true })
    this.set(
      [
        `case "$(tr '\\0' ' ' < /proc/$PPID/cmdline 2>/dev/null)" in`,
        `  *" restore "*${id}*) [ -e ${once} ] || { : > ${once}; sleep ${ms / 1000}; } ;;`,
        'esac',
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
