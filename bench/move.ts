// bench/move: a paused session with a 100 MiB change on top of the base image moves from the laptop
// to the office server; side by side in one run (alternating which goes first each round): Berth's
// move (`berth resume ID --on office`, memory included) against `docker save IMAGE | ssh office
// docker load` of the same committed image. Prints bytes sent and seconds, their medians, and the
// ratios. Targets: Berth sends under 1.2x the changed bytes (not the whole image) and is at least
// 3x faster.
// Run: npx tsx bench/move.ts [rounds, default 3] [MiB of change, default 100]
import { spawn } from 'node:child_process'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { BerthHome, localDocker, officeDocker } from '../test/support/berth'
import { testHost } from '../test/support/testhost'
import { median, table } from './support'

const h = testHost()

/** `docker save IMAGE | ssh office docker load`, counting the bytes that cross the connection. */
async function saveAndLoad(image: string): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now()
  const save = spawn('docker', ['-H', `unix://${h.localSocket}`, 'save', image], { stdio: ['ignore', 'pipe', 'pipe'] })
  const target = new URL(h.officeUrl.replace(/^ssh:/, 'http:'))
  const ssh = spawn(
    'ssh',
    ['-i', h.officeIdentity, '-p', target.port, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${target.username}@${target.hostname}`, 'docker load -q'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  )
  let bytes = 0
  const count = new Transform({
    transform(chunk: Buffer, _e, cb) {
      bytes += chunk.length
      cb(null, chunk)
    },
  })
  const errs: string[] = []
  save.stderr!.on('data', (d: Buffer) => errs.push(d.toString()))
  ssh.stderr!.on('data', (d: Buffer) => errs.push(d.toString()))
  ssh.stdout!.resume()
  const exits = Promise.all([new Promise((r) => save.on('close', r)), new Promise((r) => ssh.on('close', r))])
  await pipeline(save.stdout!, count, ssh.stdin!)
  const [a, b] = (await exits) as [number, number]
  if (a !== 0 || b !== 0) throw new Error(`docker save | ssh docker load failed: ${errs.join(' ').trim()}`)
  return { ms: performance.now() - t0, bytes }
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3)
  const mib = Number(process.argv[3] ?? 100)
  const changed = mib * 1024 * 1024
  const berth = new BerthHome('bench-move')
  const images: string[] = []
  const rows: Array<Array<string | number>> = [['round', 'berth s', 'berth MiB', 'memory', 'save|load s', 'save|load MiB']]
  const berthMs: number[] = []
  const berthBytes: number[] = []
  const baseMs: number[] = []
  const baseBytes: number[] = []
  try {
    await berth.addOffice()
    // the office server has the base image (a first session there carries it once, outside the timings)
    const warm = await berth.json(['session', 'create', '--server', 'office', '--image', h.baseImage], { timeoutMs: 600_000 })
    await berth.json(['finish', warm.id])
    // and one untimed move warms what every move shares (the connection, the server helpers)
    const first = await berth.json(['session', 'create', '--image', h.baseImage])
    await berth.json(['pause', first.id, '--wait'])
    await berth.json(['resume', first.id, '--on', 'office'], { timeoutMs: 600_000 })
    await berth.json(['finish', first.id])
    for (let r = 0; r < rounds; r++) {
      process.stderr.write(`round ${r + 1} of ${rounds}: a session with ${mib} MiB of new data...\n`)
      const s = await berth.json(['session', 'create', '--image', h.baseImage])
      const w = await berth.run(['exec', s.id, '--', 'sh', '-c', `head -c ${changed} /dev/urandom > /opt/change && sync`])
      if (w.code !== 0) throw new Error(w.stderr)
      await berth.json(['pause', s.id, '--wait'])
      // the same committed image, for the baseline
      const image = `berth-bench/move:r${r}`
      await localDocker().getContainer(`berth-${s.id}`).commit({ repo: 'berth-bench/move', tag: `r${r}`, pause: false })
      images.push(image)
      const berthMove = async () => {
        const t0 = performance.now()
        const m = await berth.json(['resume', s.id, '--on', 'office'], { timeoutMs: 600_000 })
        return { ms: performance.now() - t0, bytes: m.bytes as number, memory: m.memory as boolean }
      }
      const baseline = async () => {
        const out = await saveAndLoad(image)
        await officeDocker().getImage(image).remove().catch(() => undefined)
        return out
      }
      let b: { ms: number; bytes: number; memory: boolean }
      let d: { ms: number; bytes: number }
      if (r % 2 === 0) {
        b = await berthMove()
        d = await baseline()
      } else {
        d = await baseline()
        b = await berthMove()
      }
      berthMs.push(b.ms)
      berthBytes.push(b.bytes)
      baseMs.push(d.ms)
      baseBytes.push(d.bytes)
      rows.push([`${r + 1}`, b.ms / 1000, b.bytes / 1048576, b.memory ? 'yes' : 'no', d.ms / 1000, d.bytes / 1048576])
      await berth.json(['finish', s.id])
    }
  } finally {
    for (const i of images) await localDocker().getImage(i).remove().catch(() => undefined)
    await berth.cleanup()
  }
  const mb = median(berthMs)
  const md = median(baseMs)
  const bb = median(berthBytes)
  const db = median(baseBytes)
  rows.push(['median', mb / 1000, bb / 1048576, '', md / 1000, db / 1048576])
  process.stdout.write(`bench/move: a paused session with ${mib} MiB changed on top of ${h.baseImage}, laptop -> office, ${rounds} rounds\n`)
  process.stdout.write(table(rows) + '\n')
  process.stdout.write(`bytes: Berth sent ${(bb / changed).toFixed(2)}x the changed bytes (target under 1.2x); docker save | load sent ${(db / changed).toFixed(2)}x\n`)
  process.stdout.write(`time: Berth's move was ${(md / mb).toFixed(2)}x faster than docker save | ssh docker load (target at least 3x)\n`)
}

main().catch((e: Error) => {
  process.stderr.write(`bench/move failed: ${e.message}\n`)
  process.exitCode = 1
})
