// bench/lid-close: `berth pause --all --wait` as the sleep automation runs it before the lid closes,
// for N = 1, 4 and 8 sessions each holding 256 MiB of random memory, half on the laptop's engine and
// half on the office server, side by side in one run with the Berth before this work (BASELINE, a
// git ref, built into a scratch folder): seconds until every session is frozen with its files
// durable (target: under 1.5 s for N = 8), until every memory checkpoint is durable (target: within
// the 5 s window logind gives by default), and, with a CRIU that hangs, until the call returns
// (target: never past the deadline). Beside them, the disk floor: N x 256 MiB of random bytes
// written and fsynced to the filesystem the checkpoints go to, in the same run (no pause can make
// its memory durable faster than the disk takes it).
// The "slots" part: how many dumps a server should write at once (the dumpsAtOnce setting), for the
// largest N, each figure with a deadline that does not limit it, side by side in one run.
//   npx tsx bench/lid-close.ts      (BENCH_NS="1 4 8", BENCH_MIB=256, BENCH_BASELINE=2540e7c, BENCH_PARTS="window hung",
//                                    BENCH_SLOTS="1 2 4" for BENCH_PARTS="slots")
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, cpSync, existsSync, fsyncSync, mkdtempSync, openSync, readdirSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs'
import { basename, join } from 'node:path'
import { BerthHome } from '../test/support/berth'
import { PrivateDockerd } from '../test/support/dockerd'
import { PrivateSshd } from '../test/support/sshd'
import { testHost } from '../test/support/testhost'
import { fmt, table } from './support'

const ROOT = join(__dirname, '..')
const NS = (process.env.BENCH_NS ?? '1 4 8').split(/\s+/).filter(Boolean).map(Number)
const MIB = Number(process.env.BENCH_MIB ?? 256)
const BASELINE = process.env.BENCH_BASELINE ?? '2540e7c'
const WINDOW_S = 5
/** which parts run: the window (side by side with the baseline) and the hung CRIU */
const PARTS = (process.env.BENCH_PARTS ?? 'window hung').split(/\s+/)
const h = testHost()

/** The Berth of BASELINE, its CLI built beside this one (same node_modules). */
function baselineCli(): string {
  const dir = join('/tmp', `berth-baseline-${BASELINE}`)
  const cli = join(dir, 'out', 'cli', 'berth.cjs')
  if (existsSync(cli)) return cli
  rmSync(dir, { recursive: true, force: true })
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', '--force', dir, BASELINE], { stdio: 'ignore' })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: dir, stdio: 'inherit' })
  return cli
}

interface Run {
  /** the whole call, ms (node's start included) */
  ms: number
  /** the call as the core timed it, ms */
  coreMs: number | null
  code: number
  frozenMs: number | null
  durableMs: number | null
  durable: number
  paused: number
  n: number
  deadlineMs: number | null
}

/** The office server a run uses: the shared one, or a private sshd in front of a private engine. */
interface Office {
  url: string
  fingerprint: string
}

/** One Berth (its CLI bundle), N sessions holding MIB each, half local and half on the office server. */
async function pauseAll(
  cli: string,
  n: number,
  opts: { env?: Record<string, string>; office?: Office; deadline?: number; baselineCli?: string; beforePause?: (json: (args: string[]) => unknown) => void } = {},
): Promise<Run> {
  const home = new BerthHome(`bench-lid-${n}`)
  const env = { ...opts.env }
  const berth = (args: string[]) => {
    const r = spawnSync(process.execPath, [cli, ...args], { env: home.env(env), encoding: 'utf8', timeout: 600_000 })
    return { code: r.status ?? -1, signal: r.signal, error: r.error, stdout: r.stdout ?? '', stderr: r.stderr ?? '' }
  }
  const json = (args: string[]) => {
    const r = berth([...args, '--json'])
    if (r.code !== 0 && !args.includes('--all')) throw new Error(`berth ${args.join(' ')}: ${r.stderr || r.stdout}`)
    return JSON.parse(r.stdout)
  }
  try {
    const office = opts.office ?? { url: h.officeUrl, fingerprint: h.officeFingerprint }
    json(['server', 'add', 'office', office.url, '--identity', h.officeIdentity, '--accept-host-key', office.fingerprint])
    // a Berth in use probed its servers long before the lid closes, not while its sessions fill
    // their memory: the probe's dump rate is what plans the pause (the baseline has no probe)
    if (cli !== opts.baselineCli) for (const server of ['local', 'office']) berth(['server', 'test', server])
    const ids: string[] = []
    for (let i = 0; i < n; i++) {
      const server = i % 2 === 1 ? 'office' : 'local'
      const s = json(['session', 'create', '--image', h.tinyImage, '--server', server])
      berth(['exec', s.id, '--', 'sh', '-c', `(dd if=/dev/urandom bs=${MIB}M count=1 | sleep 3600) </dev/null >/dev/null 2>&1 &`])
      ids.push(s.id)
    }
    // the memory is there once each dd holds it (reading urandom takes seconds on a loaded machine)
    const holds = (id: string) =>
      berth(['exec', id, '--', 'sh', '-c', 'grep -h VmRSS /proc/[0-9]*/status']).stdout.split('\n').some((l) => Number(l.replace(/\D/g, '')) >= MIB * 1000)
    const until = Date.now() + 120_000
    for (const id of ids) while (!holds(id) && Date.now() < until) await new Promise((r) => setTimeout(r, 500))
    opts.beforePause?.(json)
    const t0 = performance.now()
    const r = berth(['pause', '--all', '--wait', ...(opts.deadline ? ['--deadline', String(opts.deadline)] : []), '--json'])
    const ms = performance.now() - t0
    type Out = { results?: Array<{ result?: { paused: boolean; durable?: boolean } }>; ms?: number; frozenMs?: number | null; durableMs?: number | null; deadlineMs?: number }
    let out: Out = {}
    try {
      out = JSON.parse(r.stdout || '{}') as Out
    } catch {
      // not JSON (a call killed half way, a crash's trace): said below as it came
    }
    if (!out.results) {
      // one line (the reader of a failed baseline sees its first line), the call's own words first
      const said = `${r.stdout} ${r.stderr}`.replace(/\s+/g, ' ').trim() || 'nothing on stdout or stderr'
      const how = r.error ? `${r.error.message}` : r.signal ? `killed by ${r.signal}` : `exit ${r.code}`
      throw new Error(`pause --all failed (${how}; ${cli}; the daemon's logs are in ${keepLogs(home.home)}): ${said}`)
    }
    // who was not paused by the deadline, and why, goes to stderr for whoever reads the figures
    for (const x of out.results as Array<{ name?: string; server?: string; error?: { message?: string }; result?: { paused: boolean; mode?: string; state?: string; fallback?: string } }>)
      if (!x.result?.paused) process.stderr.write(`N = ${n}: ${x.name} on ${x.server} not paused: ${JSON.stringify(x.result ?? x.error ?? x)}\n`)
    if (process.env.BENCH_KEEP_LOGS) {
      await new Promise((r) => setTimeout(r, 10_000))
      for (const x of out.results as Array<{ id: string; name?: string; result?: { paused: boolean } }>)
        if (!x.result?.paused) process.stderr.write(`events of ${x.name}: ${berth(['session', 'events', x.id]).stdout}\n`)
      process.stderr.write(`N = ${n}: the daemon's logs are in ${keepLogs(home.home)}\n`)
    }
    const durable = out.results.filter((x) => x.result?.paused && x.result.durable).length
    const paused = out.results.filter((x) => x.result?.paused).length
    // the core's frozenMs counts the sessions that paused: with any left running, not all were frozen
    return { ms, coreMs: out.ms ?? null, code: r.code, frozenMs: paused === n ? (out.frozenMs ?? null) : null, durableMs: out.durableMs ?? (durable === n && r.code === 0 ? ms : null), durable, paused, n, deadlineMs: out.deadlineMs ?? null }
  } finally {
    await home.cleanup()
  }
}

/**
 * Keeps a home's daemon logs (the home goes at the end of the run) and says where. Today's Berth
 * writes them in HOME/logs; the baseline wrote HOME/daemon.log beside its database, and has no logs
 * folder: what is kept is every log file in either place. Never throws: the failure it documents
 * is what the reader needs, not this copy's.
 */
function keepLogs(home: string): string {
  try {
    const kept = mkdtempSync('/tmp/berth-bench-lid-logs-')
    const logs = [join(home, 'logs'), ...readdirSync(home).filter((f) => /\.log(\.\d+)?$/.test(f)).map((f) => join(home, f))].filter((f) => existsSync(f))
    for (const f of logs) cpSync(f, join(kept, basename(f)), { recursive: true })
    return logs.length ? kept : `no log files (the home had ${readdirSync(home).join(', ') || 'nothing'})`
  } catch (e) {
    return `nowhere (keeping them failed: ${(e as Error).message})`
  }
}

/** ms to write n x MIB of random bytes and fsync each file, where the local engine keeps its checkpoints. */
function diskFloorMs(n: number): number {
  const root = execFileSync('docker', ['-H', `unix://${h.localSocket}`, 'info', '-f', '{{.DockerRootDir}}'], { encoding: 'utf8' }).trim()
  const dir = mkdtempSync(join(root, 'berth-bench-floor-'))
  const chunk = randomBytes(MIB * 1024 * 1024)
  try {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) {
      const fd = openSync(join(dir, String(i)), 'w')
      writeSync(fd, chunk)
      fsyncSync(fd)
      closeSync(fd)
    }
    return performance.now() - t0
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const s = (ms: number | null) => (ms === null ? '-' : fmt(ms / 1000))

async function main(): Promise<void> {
  const current = join(ROOT, 'out', 'cli', 'berth.cjs')
  const baseline = baselineCli()
  const rows: Array<Array<string | number>> = [
    ['N x 256 MiB (half on the office server)', `${BASELINE}: all durable s`, 'now: all frozen + files durable s', 'now: all memory durable s', 'disk floor s', 'durable by the deadline', 'deadline s', 'target frozen < 1.5 s', `target durable <= ${WINDOW_S} s`],
  ]
  for (const n of PARTS.includes('window') ? NS : []) {
    // (a baseline that fails on this machine is reported as such; the rest of the run goes on)
    const before = await pauseAll(baseline, n, { baselineCli: baseline }).catch((e: Error) => {
      process.stderr.write(`baseline N = ${n}: ${e.message.split('\n')[0]}\n`)
      return null
    })
    const now = await pauseAll(current, n)
    // and when the window is not the limit: how long until every memory checkpoint is durable
    const unbounded = await pauseAll(current, n, { deadline: 120 })
    const floor = diskFloorMs(n)
    rows.push([
      `N = ${n}`,
      before ? s(before.durableMs ?? before.ms) : 'failed',
      now.frozenMs !== null ? s(now.frozenMs) : `not all (${now.paused} of ${n} frozen by the deadline)`,
      now.durableMs !== null ? s(now.durableMs) : `${s(unbounded.durableMs)} (past the window)`,
      s(floor),
      `${now.durable} of ${n}`,
      s(now.deadlineMs),
      now.frozenMs !== null && now.frozenMs < 1500 ? 'met' : 'missed',
      (now.durableMs ?? unbounded.durableMs ?? Infinity) <= WINDOW_S * 1000 ? 'met' : 'missed',
    ])
  }
  if (rows.length > 1) process.stdout.write(`${table(rows)}\n\n`)
  if (PARTS.includes('slots')) {
    const n = Math.max(...NS)
    const slots = (process.env.BENCH_SLOTS ?? '1 2 4').split(/\s+/).filter(Boolean)
    const rounds = Number(process.env.BENCH_ROUNDS ?? 1)
    const by = new Map<string, number[]>(slots.map((k) => [k, []]))
    // rounds interleave the settings, so a load that comes and goes falls on each alike
    for (let i = 0; i < rounds; i++)
      for (const k of slots) {
        const r = await pauseAll(current, n, { deadline: 120, beforePause: (json) => json(['settings', 'set', 'dumpsAtOnce', k]) })
        if (r.durableMs !== null) by.get(k)!.push(r.durableMs)
        process.stderr.write(`slots ${k}, round ${i + 1}: ${r.durableMs !== null ? `all memory durable in ${s(r.durableMs)} s` : `not all durable (${r.durable} of ${n})`}\n`)
      }
    const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : null)
    const one = median(by.get(slots[0]!) ?? [])
    const srows: Array<Array<string | number>> = [[`N = ${n} x ${MIB} MiB, dumps at once per server`, 'all memory durable s (median)', `ratio to ${slots[0]} at once`, 'runs']]
    for (const k of slots) {
      const m = median(by.get(k)!)
      srows.push([k, s(m), m !== null && one ? fmt(m / one) : '-', String(by.get(k)!.length)])
    }
    process.stdout.write(`${table(srows)}\n\n`)
  }
  if (!PARTS.includes('hung')) return

  // a CRIU that never returns, on engines of their own so the shared ones (other people's tests)
  // are not disturbed: a private laptop dockerd, and a private office dockerd behind a private sshd,
  // both running a criu that the run swaps for one that sleeps
  const criuDir = mkdtempSync('/tmp/berth-bench-criu-')
  const criu = (body: string) => writeFileSync(join(criuDir, 'criu'), `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  chmodSync(criuDir, 0o755)
  const PATH = `${criuDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`
  const laptop = new PrivateDockerd('172.31.207.1/24', { PATH })
  const officeEngine = new PrivateDockerd('172.31.209.1/24', { PATH })
  const officeSshd = new PrivateSshd(25000 + Math.floor(Math.random() * 900), { dockerHost: officeEngine.dockerHost })
  const hung: Array<Array<string | number>> = [['N x 256 MiB, CRIU hangs (half on the office server)', 'all frozen + files durable s', 'all durable s', 'call returned s', 'the core answered s', 'deadline s', 'paused', 'durable', 'target: never past the deadline']]
  try {
    criu(`exec ${h.criu} "$@"`)
    await laptop.start()
    laptop.loadFrom(h.localSocket, h.tinyImage)
    await officeEngine.start()
    // the office's ssh user (in the docker group) reaches the private engine's socket
    chmodSync(officeEngine.dir, 0o755)
    officeEngine.loadFrom(h.localSocket, h.tinyImage)
    await officeSshd.start()
    for (const n of NS) {
      criu(`exec ${h.criu} "$@"`)
      const r = await pauseAll(current, n, {
        env: { DOCKER_HOST: laptop.dockerHost },
        office: { url: officeSshd.url, fingerprint: officeSshd.fingerprint() },
        // Berth has tested both engines and found memory pauses working; then CRIU stops answering
        beforePause: (json) => {
          json(['server', 'test', 'local'])
          json(['server', 'test', 'office'])
          criu('exec sleep 3600')
        },
      })
      hung.push([`N = ${n}`, s(r.frozenMs), s(r.durableMs), s(r.ms), s(r.coreMs), s(r.deadlineMs), `${r.paused} of ${n}`, `${r.durable} of ${n}`, r.deadlineMs !== null && r.coreMs !== null && r.coreMs <= r.deadlineMs ? 'met' : 'missed'])
    }
  } finally {
    await officeSshd.stop()
    officeSshd.cleanup()
    await officeEngine.stop()
    await laptop.stop()
    rmSync(criuDir, { recursive: true, force: true })
  }
  process.stdout.write(`${table(hung)}\n`)
  process.stdout.write(`\n(the call's time includes starting node for the CLI, about 0.2 s; "deadline" is what the window gives: ${WINDOW_S} s less half a second by default)\n`)
}

void main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`)
  process.exit(1)
})
