// bench/replica: (1) a running laptop session made from a 1 GiB image (its replica on the office
// server already holds those layers) changes 10 MiB, pauses, and its replica is brought up to date
// (`berth replica sync`): bytes sent and seconds, and the ratio of bytes to the changed bytes
// (target under 1.2x). Only what the replica lacks travels: layers it has are skipped; the
// session's writable layer and workspace travel whole, so the figure holds for a session whose own
// layer is small (its bulk in the image), not for one that wrote 1 GiB into its own files.
// (2) seconds from "server gone" (kill -9 of a private dockerd, this home's `local`) to a shell on
// the replica (`resume --on office` then `exec true`; target under 5 s for a disk replica).
// Run: npx tsx bench/replica.ts [rounds, default 3]
import { execFileSync } from 'node:child_process'
import { BerthHome } from '../test/support/berth'
import { PrivateDockerd } from '../test/support/dockerd'
import { testHost } from '../test/support/testhost'
import { median, table } from './support'

const h = testHost()
const MiB = 1 << 20

async function until(f: () => Promise<boolean>, what: string, ms = 600_000): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await f()) return
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3)
  const engine = new PrivateDockerd('172.31.219.1/24')
  const berth = new BerthHome('bench-replica')
  const env = { DOCKER_HOST: engine.dockerHost }
  const json = (args: string[]) => berth.json(args, { env, timeoutMs: 900_000 })
  const run = (args: string[]) => berth.run(args, { env, timeoutMs: 900_000 })
  const big = 'berth-bench-gib:latest'
  try {
    await engine.start()
    engine.loadFrom(h.localSocket, h.tinyImage)
    // a 1 GiB image, made on the private engine (random bytes: nothing compresses it away); its
    // command is a shell's, not the one that wrote the GiB (a session runs its image's command at
    // every start: that one rewrote the GiB into the session's own layer, 100 MiB and more a round)
    const d = `docker -H ${engine.dockerHost}`
    execFileSync('sh', ['-c', `${d} rm -f bench-gib >/dev/null 2>&1; ${d} run --name bench-gib ${h.tinyImage} sh -c 'head -c ${1024 * MiB} /dev/urandom > /gib' && ${d} commit --change 'CMD ["/bin/sh"]' bench-gib ${big} >/dev/null && ${d} rm bench-gib >/dev/null`])
    await json(['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', h.officeFingerprint])
    const s = await json(['session', 'create', '--image', big, '--name', 'big'])
    await json(['session', 'set', 'big', '--replicate-to', 'office'])
    const syncs: Array<{ bytes: number; ms: number }> = []
    for (let r = -1; r < rounds; r++) {
      await run(['exec', 'big', '--', 'sh', '-c', `head -c ${10 * MiB} /dev/urandom > /workspace/changed`])
      await json(['pause', 'big', '--wait', '--no-memory'])
      const t0 = performance.now()
      const rep = await json(['replica', 'sync', 'big'])
      const ms = performance.now() - t0
      // the first round carries the 1 GiB layers: a warm-up, as a replica made once
      if (r >= 0) syncs.push({ bytes: rep.bytes, ms })
      else console.log(`warm-up (first replica, the image's layers too): ${(rep.bytes / MiB).toFixed(1)} MiB in ${(ms / 1000).toFixed(2)} s`)
      await json(['resume', 'big'])
    }
    const gone: number[] = []
    for (let r = 0; r < rounds; r++) {
      const x = await json(['session', 'create', '--image', h.tinyImage])
      await json(['session', 'set', x.id, '--replicate-to', 'office'])
      await json(['pause', x.id, '--wait', '--no-memory'])
      await json(['replica', 'sync', x.id])
      await engine.kill9()
      const t0 = performance.now()
      await json(['resume', x.id, '--on', 'office'])
      const shell = await berth.run(['exec', x.id, '--', 'true'])
      if (shell.code !== 0) throw new Error(`no shell on the replica: ${shell.stderr}`)
      gone.push(performance.now() - t0)
      await engine.start()
      await until(async () => (await json(['replica', 'clean', x.id])).removed.length === 1, 'the stale copy to go')
      await json(['finish', x.id])
    }
    const bytes = median(syncs.map((x) => x.bytes))
    const secs = median(syncs.map((x) => x.ms)) / 1000
    const failover = median(gone) / 1000
    console.log(
      table([
        ['figure', 'median', 'target', 'ratio'],
        ['bytes to replicate a seal with 10 MiB changed (MiB)', bytes / MiB, 12, bytes / (10 * MiB)],
        ['seconds to replicate it', secs, '-', '-'],
        ['seconds from server gone to a shell on the replica', failover, 5, failover / 5],
      ]),
    )
    console.log(`rounds: ${rounds}; bytes ratio is to the 10 MiB changed (target < 1.2x); failover ratio is to the 5 s target`)
    void s
  } finally {
    await berth.cleanup()
    await engine.stop()
  }
}

void main().catch((e) => {
  console.error(e)
  process.exit(1)
})
