// A test restore: the snapshot is restored into a throwaway container on its server (memory too,
// when it has some), checked to keep running, then removed. The snapshot records that it restores.
import { shapeOf } from '../sessions/session-shape'
import type { Snapshot } from '../../../shared/models'
import { BerthError } from '../../../shared/errors'
import { progressOn } from '../progress'
import { containerSpec } from '../sessions/container-spec'
import { fillWorkspaceFromSnapshot, memoryRestore } from './restore'
import { removeContainer, removeVolume } from './server-steps'
import { LABEL_HOLDER, LABEL_SNAPSHOT } from '../engines/docker-names'
import type { SnapshotService } from './snapshot-service'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function testRestore(svc: SnapshotService, ref: string, op?: string): Promise<{ snapshot: Snapshot; memory: boolean; note: string | null; ms: number }> {
  const snap = svc.restorable(ref)
  const t0 = performance.now()
  const engine = svc.ctx.engines.get(snap.server)
  await engine.ready()
  const progress = progressOn(svc.ctx.bus, op, snap.sessionId, snap.server)
  progress.stage('test', `restoring ${snap.id} into a throwaway container on ${snap.server}`)
  const tag = `${svc.ctx.homeId}.${snap.name}.v${snap.version}`
  const name = `berth-test-${tag}`
  const volume = `berth-test-${tag}-ws`
  const labels = { [LABEL_HOLDER]: svc.ctx.homeId, [LABEL_SNAPSHOT]: snap.id }
  await removeContainer(engine, name)
  await removeVolume(engine, volume)
  try {
    await engine.docker.createVolume({ Name: volume, Labels: labels })
    // the same shape as the session it came from (its mounts matter to a memory restore)
    const spec = containerSpec({
      id: 'test',
      route: snap.detail.route ?? 'berth-test',
      image: snap.imageRef!,
      env: snap.detail.env ?? {},
      home: svc.ctx.homeId,
      secrets: (snap.detail.secrets ?? []).length > 0,
      shape: shapeOf(snap.detail.shape),
    })
    spec.name = name
    spec.Labels = labels
    spec.HostConfig!.Mounts![0]!.Source = volume
    const c = await engine.docker.createContainer(spec)
    await fillWorkspaceFromSnapshot(engine, svc.ctx.homeId, snap, c.id)
    const restore = memoryRestore(svc, snap)
    const outcome = restore ? await restore(c.id) : { memory: false, note: null }
    const info = await c.inspect()
    if (!info.State.Running) await c.start()
    await sleep(1000)
    const after = await c.inspect()
    if (!after.State.Running) throw new BerthError('checkpoint', `${snap.id} did not keep running after its restore (${after.State.Status}, exit ${after.State.ExitCode})`)
    svc.markRestored(snap.id)
    const ms = performance.now() - t0
    progress.done('test', `${snap.id} restores${outcome.memory ? ' with its memory' : ''}`)
    return { snapshot: svc.toModel(svc.ctx.repo.get(snap.id)!), memory: outcome.memory, note: outcome.note, ms }
  } finally {
    await removeContainer(engine, name).catch(() => undefined)
    await removeVolume(engine, volume).catch(() => undefined)
  }
}
