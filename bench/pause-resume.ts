// bench/pause-resume: for sessions whose processes hold about 64 MiB, 512 MiB and 2 GiB, side by side
// in one run, round by round: Berth's durable pause (`pause --wait`) and its resume, in full and with
// lazy pages (issue 19), the raw `docker checkpoint create` + `docker start --checkpoint` of an
// identical container, and the disk floor (dd of the checkpoint's byte count with conv=fsync). For
// each resume: "to first command" (from the resume call to a command typed in the session's tmux view
// answering) and "to all memory back" (full restores: when they return; lazy: the "memory-back"
// event). Then 8 sessions of 256 MiB resumed at once, full and lazy: until every one has answered.
// Prints medians, ratios and seconds per GiB. Berth is timed through its contract.
//   npx tsx bench/pause-resume.ts            (BENCH_ROUNDS=N, BENCH_SIZES="64 512 2048", BENCH_MANY=8)
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ControlClient, connectOrStart } from '../src/main/doors/control-client'
import { KEEPALIVE } from '../src/main/core/sessions/keepalive'
import { median, table } from './support'

const run = promisify(execFile)
const ROOT = join(__dirname, '..')
const ENTRY = join(ROOT, 'out', 'cli', 'berth.cjs')
const IMAGE = process.env.BENCH_IMAGE ?? 'berth-base:bookworm'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SIZES = (process.env.BENCH_SIZES ?? '64 512 2048').split(/\s+/).filter(Boolean).map(Number)
const DATA_ROOT = '/var/lib/docker'
const MANY = Number(process.env.BENCH_MANY ?? 8)
const GiB = 1 << 30

const docker = async (...args: string[]) => (await run('docker', args, { maxBuffer: 1 << 24 })).stdout.trim()
const secs = async (f: () => Promise<unknown>) => {
  const t0 = performance.now()
  await f()
  return (performance.now() - t0) / 1000
}

/** A process that holds `mb` MiB of random memory, started in a view (tmux), so it is in init's tree. */
const workload = (mb: number) =>
  `tmux new-session -d -s load "perl -e 'open(F, \\"<\\", \\"/dev/urandom\\"); read(F, \\$x, ${mb} * 1048576); sleep 1e9 while 1'" && tmux new-session -d -s work`

/** Types a command into the work view and waits, inside the container, until the view shows its answer. */
let asked = 0
async function firstCommand(container: string): Promise<void> {
  const n = ++asked
  // the typed line says $((n+1000000)), the answer the number itself: only a running shell answers
  const script = `tmux send-keys -t work 'echo answer-$((${n}+1000000))' Enter; i=0; while [ $i -lt 3000 ]; do tmux capture-pane -p -t work | grep -q answer-${n + 1000000} && exit 0; sleep 0.01; i=$((i+1)); done; exit 1`
  await docker('exec', container, 'sh', '-c', script)
}

async function rssKiB(container: string): Promise<number> {
  const out = await docker('exec', container, 'sh', '-c', 'ps -o rss= -C perl || true').catch(() => '')
  return Number(out.trim().split('\n')[0] || 0)
}

async function holdsMemory(container: string, mb: number): Promise<void> {
  const deadline = Date.now() + 120_000
  while ((await rssKiB(container)) < mb * 1024) {
    if (Date.now() > deadline) throw new Error(`${container} never filled ${mb} MiB`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** containerd 1.6 leaks a full copy of every checkpoint Docker restores: remove the raw runs' own. */
function leakedSince(before: Set<string>): string[] {
  return readdirSync('/tmp')
    .filter((d) => d.startsWith('ctrd-checkpoint') && !before.has(d))
    .map((d) => join('/tmp', d))
}

function ctrdDirs(): Set<string> {
  return new Set(readdirSync('/tmp').filter((d) => d.startsWith('ctrd-checkpoint')))
}

async function floor(bytes: number, source: string): Promise<number> {
  const target = join(existsSync(DATA_ROOT) ? DATA_ROOT : tmpdir(), `.berth-bench-floor-${process.pid}`)
  try {
    return await secs(() => run('dd', [`if=${source}`, `of=${target}`, 'bs=1M', `count=${Math.ceil(bytes / (1 << 20))}`, 'conv=fsync', 'status=none']))
  } finally {
    rmSync(target, { force: true })
  }
}

interface Round {
  pause: number
  resume: number
  /** resume call to the first command answered, full restore */
  first: number
  lazyResume: number
  lazyFirst: number
  lazyAllBack: number
  lazyWas: boolean
  rawFirst: number
  serverPause: number
  raw: number
  rawRestore: number
  floor: number
  bytes: number
  ok: boolean
}

async function berthRound(c: ControlClient, mb: number): Promise<Omit<Round, 'raw' | 'rawRestore' | 'floor' | 'rawFirst'>> {
  const s = await c.call('session.create', { image: IMAGE })
  try {
    await docker('exec', s.containerId!, 'sh', '-c', workload(mb))
    await holdsMemory(s.containerId!, mb)
    let serverPause = 0
    const pause = await secs(async () => {
      const r = await c.call('session.pause', { id: s.id, wait: true })
      if (!r.paused || r.mode !== 'memory' || !r.durable) throw new Error(`Berth did not pause with memory: ${JSON.stringify(r)}`)
      serverPause = r.ms / 1000
    })
    const events = await c.call('session.events', { id: s.id })
    const bytes = Number(events.find((e) => e.kind === 'pause-durable')?.detail.bytes ?? 0)
    await c.call('settings.set', { patch: { lazyResume: false } })
    const t0 = performance.now()
    const r = await c.call('session.resume', { id: s.id })
    if (!r.resumed || r.mode !== 'memory') throw new Error(`Berth did not resume from memory: ${JSON.stringify(r)}`)
    const resume = (performance.now() - t0) / 1000
    await firstCommand(s.containerId!)
    const first = (performance.now() - t0) / 1000
    const ok = (await rssKiB(s.containerId!)) >= mb * 1024
    // the same session again, with lazy pages
    const again = await c.call('session.pause', { id: s.id, wait: true })
    if (!again.paused || again.mode !== 'memory' || !again.durable) throw new Error(`Berth did not pause with memory: ${JSON.stringify(again)}`)
    await c.call('settings.set', { patch: { lazyResume: true } })
    const seen = (await c.call('session.events', { id: s.id, limit: 1000 })).length
    const t1 = performance.now()
    const l = await c.call('session.resume', { id: s.id })
    if (!l.resumed || l.mode !== 'memory') throw new Error(`Berth did not resume from memory: ${JSON.stringify(l)}`)
    const lazyResume = (performance.now() - t1) / 1000
    await firstCommand(s.containerId!)
    const lazyFirst = (performance.now() - t1) / 1000
    const lazyAllBack = l.lazy ? (await memoryBack(c, s.id, seen)) - t1 / 1000 : lazyResume
    const lazyOk = (await rssKiB(s.containerId!)) >= mb * 1024
    return { pause, resume, first, lazyResume, lazyFirst, lazyAllBack, lazyWas: !!l.lazy, serverPause, bytes, ok: ok && lazyOk }
  } finally {
    await c.call('session.finish', { id: s.id, force: true }).catch(() => undefined)
  }
}

/** When (performance.now() / 1000) the session's "memory-back" event was seen, after the first `seen` events. */
async function memoryBack(c: ControlClient, id: string, seen: number): Promise<number> {
  const deadline = Date.now() + 300_000
  while (Date.now() < deadline) {
    const events = await c.call('session.events', { id, limit: 1000 })
    const back = events.slice(seen).find((e) => e.kind === 'memory-back' || e.kind === 'memory-back-unknown')
    if (back?.kind === 'memory-back' && back.detail.lazy === true) return performance.now() / 1000
    if (back) throw new Error(`the lazy restore did not bring the memory back: ${JSON.stringify(back.detail)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('all memory was not back within 300 s')
}

async function rawRound(mb: number): Promise<{ raw: number; rawRestore: number; rawFirst: number; ok: boolean }> {
  const name = `berth-bench-raw-${process.pid}-${mb}`
  await docker('rm', '-f', name).catch(() => undefined)
  await docker('run', '-d', '--name', name, '--label', 'berth.bench=1', '--entrypoint', KEEPALIVE[0]!, IMAGE, ...KEEPALIVE.slice(1))
  const before = ctrdDirs()
  let pagesSize = -1
  try {
    await docker('exec', name, 'sh', '-c', workload(mb))
    await holdsMemory(name, mb)
    await run('sync')
    const raw = await secs(() => docker('checkpoint', 'create', name, 'bench'))
    const t0 = performance.now()
    const rawRestore = await secs(async () => {
      try {
        await docker('start', '--checkpoint', 'bench', name)
      } catch (e) {
        // Docker's own quirk: a second try a moment later works (see the recipe)
        if (!/already exists/.test((e as Error).message)) throw e
        await new Promise((r) => setTimeout(r, 1000))
        await docker('start', '--checkpoint', 'bench', name)
      }
    })
    await firstCommand(name)
    const rawFirst = (performance.now() - t0) / 1000
    const ok = (await rssKiB(name)) >= mb * 1024
    const id = await docker('inspect', '-f', '{{.Id}}', name)
    const pages = join(DATA_ROOT, 'containers', id, 'checkpoints', 'bench', 'pages-1.img')
    pagesSize = existsSync(pages) ? statSync(pages).size : -1
    return { raw, rawRestore, rawFirst, ok }
  } finally {
    await docker('rm', '-f', name).catch(() => undefined)
    // ours only: the leaked copy holds exactly this run's pages
    for (const d of leakedSince(before)) {
      const p = join(d, 'pages-1.img')
      if (pagesSize > 0 && existsSync(p) && statSync(p).size === pagesSize) rmSync(d, { recursive: true, force: true })
    }
  }
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-cli.mjs')], { stdio: 'inherit', cwd: ROOT })
  const home = mkdtempSync(join(tmpdir(), 'berth-bench-pause-'))
  process.env.BERTH_HOME = home
  const source = `/dev/shm/berth-bench-random-${process.pid}`
  execFileSync('sh', ['-c', `head -c ${Math.max(...SIZES) + 64}M /dev/urandom > ${source}`])
  const c = await connectOrStart(home, ENTRY)
  const results = new Map<number, Round[]>()
  const many: Array<{ lazy: boolean; seconds: number }> = []
  try {
    const method = await c.call('server.test', { name: 'local' })
    console.log(`engine: Docker ${method.version}, memory pause ${method.checkpoint ? 'available' : 'NOT available'}; ${ROUNDS} rounds, sizes ${SIZES.join(', ')} MiB`)
    console.log(`load average at start: ${readLoad()}`)
    for (let r = 0; r < ROUNDS; r++) {
      for (const mb of SIZES) {
        const b = await berthRound(c, mb)
        const d = await rawRound(mb)
        const f = await floor(b.bytes, source)
        const round: Round = { ...b, raw: d.raw, rawRestore: d.rawRestore, rawFirst: d.rawFirst, floor: f, ok: b.ok && d.ok }
        results.set(mb, [...(results.get(mb) ?? []), round])
        console.log(
          `round ${r + 1} ${mb} MiB: berth pause ${round.pause.toFixed(2)} s (server ${round.serverPause.toFixed(2)}), resume ${round.resume.toFixed(2)} s; ` +
            `to first command ${round.first.toFixed(2)} s; lazy resume ${round.lazyResume.toFixed(2)} s, first command ${round.lazyFirst.toFixed(2)} s, ` +
            `all memory back ${round.lazyAllBack.toFixed(2)} s${round.lazyWas ? '' : ' (NOT lazy)'}; ` +
            `docker checkpoint ${round.raw.toFixed(2)} s, start --checkpoint ${round.rawRestore.toFixed(2)} s, first command ${round.rawFirst.toFixed(2)} s; floor ${round.floor.toFixed(2)} s ` +
            `(${(round.bytes / (1 << 20)).toFixed(0)} MiB); memory back: ${round.ok ? 'yes' : 'NO'}`,
        )
      }
    }
    if (MANY > 0) {
      for (const lazy of [false, true]) many.push({ lazy, seconds: await manyAtOnce(c, MANY, 256, lazy) })
    }
  } finally {
    c.close()
    await run(process.execPath, [ENTRY, 'shutdown'], { env: { ...process.env, BERTH_HOME: home } }).catch(() => undefined)
    rmSync(home, { recursive: true, force: true })
    rmSync(source, { force: true })
  }

  const firsts: Array<Array<string | number>> = [
    ['size', 'berth to first cmd', 'berth lazy to first cmd', 'docker to first cmd', 'berth all back', 'berth lazy all back', 'docker all back', 'docker/lazy first', 'docker/berth first', 'lazy first <= 1 s'],
  ]
  for (const mb of SIZES) {
    const rs = results.get(mb) ?? []
    const m = (k: keyof Round) => median(rs.map((x) => Number(x[k])))
    firsts.push([`${mb} MiB`, m('first'), m('lazyFirst'), m('rawFirst'), m('resume'), m('lazyAllBack'), m('rawRestore'), `${(m('rawFirst') / m('lazyFirst')).toFixed(2)}x`, `${(m('rawFirst') / m('first')).toFixed(2)}x`, m('lazyFirst') <= 1 ? 'yes' : 'no'])
  }
  console.log(`\nresume to first command and to all memory back, medians of ${ROUNDS} rounds, seconds (all back: a full restore has it all when it returns)`)
  console.log(table(firsts))
  for (const x of many) console.log(`${MANY} x 256 MiB resumed at once, ${x.lazy ? 'lazy' : 'full'}: all answering after ${x.seconds.toFixed(2)} s (target 3 s)`)

  const rows: Array<Array<string | number>> = [['size', 'berth pause', 'berth resume', 'docker ckpt', 'docker restore', 'disk floor', 'ckpt MiB']]
  const ratios: Array<Array<string | number>> = [['size', 'pause/floor', 'resume/floor', 'docker ckpt/berth pause', 'docker restore/berth resume', 'resume < 1 s']]
  const perGiB: Array<Array<string | number>> = [['size', 'berth pause s/GiB', 'berth resume s/GiB', 'docker ckpt s/GiB', 'docker restore s/GiB', 'floor s/GiB']]
  for (const mb of SIZES) {
    const rs = results.get(mb) ?? []
    const m = (k: keyof Round) => median(rs.map((x) => Number(x[k])))
    const gib = m('bytes') / GiB
    rows.push([`${mb} MiB`, m('pause'), m('resume'), m('raw'), m('rawRestore'), m('floor'), m('bytes') / (1 << 20)])
    ratios.push([`${mb} MiB`, `${(m('pause') / m('floor')).toFixed(2)}x`, `${(m('resume') / m('floor')).toFixed(2)}x`, `${(m('raw') / m('pause')).toFixed(2)}x`, `${(m('rawRestore') / m('resume')).toFixed(2)}x`, mb === 64 ? (m('resume') < 1 ? 'yes' : 'no') : '-'])
    perGiB.push([`${mb} MiB`, m('pause') / gib, m('resume') / gib, m('raw') / gib, m('rawRestore') / gib, m('floor') / gib])
  }
  console.log(`\nmedians of ${ROUNDS} rounds, seconds (Berth: durable pause with --wait, fsync'd; docker: checkpoint create is not fsync'd)`)
  console.log(table(rows))
  console.log('\nratios (targets: pause and resume within 2x of the floor; never slower than docker: docker/berth >= 1; 64 MiB resume under 1 s)')
  console.log(table(ratios))
  console.log('\nseconds per GiB of checkpoint')
  console.log(table(perGiB))
  console.log(`\nload average at the end: ${readLoad()}`)
}

/** N sessions of `mb` MiB, paused with memory, resumed at once: seconds until every one answered a command. */
async function manyAtOnce(c: ControlClient, n: number, mb: number, lazy: boolean): Promise<number> {
  const ids: Array<{ id: string; container: string }> = []
  try {
    for (let i = 0; i < n; i++) {
      const s = await c.call('session.create', { image: IMAGE })
      ids.push({ id: s.id, container: s.containerId! })
      await docker('exec', s.containerId!, 'sh', '-c', workload(mb))
    }
    for (const s of ids) await holdsMemory(s.container, mb)
    for (const s of ids) {
      const r = await c.call('session.pause', { id: s.id, wait: true })
      if (!r.paused || r.mode !== 'memory' || !r.durable) throw new Error(`Berth did not pause with memory: ${JSON.stringify(r)}`)
    }
    await c.call('settings.set', { patch: { lazyResume: lazy } })
    const t0 = performance.now()
    await Promise.all(
      ids.map(async (s) => {
        const r = await c.call('session.resume', { id: s.id })
        if (!r.resumed || r.mode !== 'memory') throw new Error(`Berth did not resume from memory: ${JSON.stringify(r)}`)
        await firstCommand(s.container)
      }),
    )
    return (performance.now() - t0) / 1000
  } finally {
    for (const s of ids) await c.call('session.finish', { id: s.id, force: true }).catch(() => undefined)
  }
}

function readLoad(): string {
  try {
    return execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ')
  } catch {
    return '?'
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exitCode = 1
})
