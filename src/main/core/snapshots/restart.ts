// Restart: the session's container is made again with its current env values. The id, the files
// (the whole disk: the old container is committed first, /workspace stays), the views and the route
// stay; the processes stop. When the engine lost the container (a crash, a removed container), the
// disk comes back from the newest snapshot of the session on that server, and the result says so.
import type { Session } from '../../../shared/models'
import { BerthError, reasonOf } from '../../../shared/errors'
import { inspectContainer, shq, type Engine } from '../engines/engine'
import { startExec } from '../sessions/exec'
import { remoteOf } from '../sessions/session-shape'
import { TMUX_SOCKET } from '../sessions/views'
import { progressOn, type ProgressReporter } from '../progress'
import { volumeName, pauseImage, pauseImagesOf, SESSION_REPO, sessionImage } from '../engines/docker-names'
import { removeSessionContainer, startSessionContainer } from '../sessions/session-container'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotRow } from '../store/snapshots-repo'
import { fillWorkspaceFromSnapshot, tagForSession } from './restore'
import { volumeExists } from './server-steps'
import type { SnapshotService } from './snapshot-service'
import { containerOf } from '../sessions/container-spec'
import { stateError } from '../sessions/lifecycle'

interface DiskSource {
  image: string
  /** fill a fresh workspace volume from this snapshot (the session's volume is gone too) */
  volumeFrom: SnapshotRow | null
  note: string | null
}

export async function restart(svc: SnapshotService, args: { id: string; env?: Record<string, string> | undefined; op?: string | undefined }): Promise<Session> {
  return (await restartTelling(svc, args)).session
}

/**
 * The resume of a paused session whose container the engine lost (removed by hand, a reset
 * engine): a restart from the newest disk Berth kept of it; what came back, in words.
 */
export async function recreateLost(svc: SnapshotService, id: string, op?: string): Promise<string> {
  return (await restartTelling(svc, { id, op })).note ?? 'the container was made again'
}

async function restartTelling(svc: SnapshotService, args: { id: string; env?: Record<string, string> | undefined; op?: string | undefined }): Promise<Restarted> {
  const ctx = svc.ctx
  const first = ctx.sessions.resolve(args.id)
  return await svc.locks.run(first.id, async () => {
    const row = ctx.sessions.resolve(first.id)
    if (!['running', 'paused', 'failed'].includes(row.state)) {
      throw stateError(row, 'restart')
    }
    const env = { ...row.env, ...(args.env ?? {}) }
    const changedEnv = Object.keys(args.env ?? {}).filter((k) => row.env[k] !== args.env![k])
    const progress = progressOn(ctx.bus, args.op, row.id, row.server)
    const restarting = ctx.lifecycle.transition(row.id, { from: [row.state], to: 'restarting', verb: 'restart', patch: { env }, detail: { env: changedEnv } })
    return await completeRestartTelling(svc, restarting, progress)
  })
}

interface Restarted {
  session: Session
  /** what came back when the container was gone */
  note: string | null
}

/** The work of a restart once the session is `restarting`; recovery runs it again after a crash. */
export async function completeRestart(svc: SnapshotService, row: SessionRow, progress?: ProgressReporter): Promise<Session> {
  return (await completeRestartTelling(svc, row, progress)).session
}

async function completeRestartTelling(svc: SnapshotService, row: SessionRow, progress?: ProgressReporter): Promise<Restarted> {
  const ctx = svc.ctx
  const engine = ctx.engines.get(row.server)
  try {
    await engine.ready()
    progress?.stage('commit', `keeping ${row.name}'s disk`)
    const views = await viewNames(engine, row)
    const source = await diskSource(svc, engine, row)
    await removeSessionContainer(engine, row.id)
    progress?.stage('start', `starting ${row.name} again`)
    const out = await startSessionContainer(ctx.sessions, engine, ctx.homeId, {
      row,
      image: source.image,
      env: row.env,
      fillFrom: source.volumeFrom ? (into) => fillWorkspaceFromSnapshot(engine, ctx.homeId, source.volumeFrom!, into) : undefined,
    })
    if (source.note) ctx.lifecycle.note(row.id, 'restored-disk', { note: source.note })
    // the views stay (their shells start afresh): terminals reattach to the same names
    if (views.length) await recreateViews(engine, out.containerId, views, row).catch((e: Error) => ctx.lifecycle.note(row.id, 'views-not-kept', { reason: e.message }))
    const running = ctx.lifecycle.transition(row.id, {
      from: ['restarting'],
      to: 'running',
      verb: 'restart',
      patch: { containerId: out.containerId, image: source.image, mode: null, pausedBy: null, failure: null, durable: false },
      detail: source.note ? { note: source.note } : {},
    })
    progress?.done('restart', `session ${row.name} restarted${source.note ? `: ${source.note}` : ''}`)
    return { session: ctx.sessions.toModel(running), note: source.note }
  } catch (e) {
    const reason = reasonOf(e)
    ctx.lifecycle.transition(row.id, { from: ['restarting'], to: 'failed', verb: 'restart', patch: { failure: `restart failed: ${reason}` } })
    throw new BerthError(e instanceof BerthError ? e.code : 'engine', `could not restart ${row.name}: ${reason}`)
  }
}

/** The old container's whole disk when it is there; else the newest disk Berth kept of the session here. */
async function diskSource(svc: SnapshotService, engine: Engine, row: SessionRow): Promise<DiskSource> {
  const ctx = svc.ctx
  const tag = sessionImage(ctx.homeId, row.id)
  const containerId = containerOf(row)
  const hasVolume = await volumeExists(engine, volumeName(row.id))
  if (await inspectContainer(engine, containerId)) {
    await engine.docker.getContainer(containerId).commit({ repo: SESSION_REPO, tag: tag.slice(SESSION_REPO.length + 1), pause: false, comment: `Berth restart of ${row.id}` })
    const latest = hasVolume ? null : newestHere(svc, row)
    return {
      image: tag,
      volumeFrom: latest,
      note: hasVolume ? null : latest ? `the workspace volume was gone: /workspace came back from ${latest.id} (${latest.createdAt})` : 'the workspace volume was gone and no snapshot holds one: /workspace starts empty',
    }
  }
  // The newest disk Berth kept of it here: a restart's commit (a restart that failed after
  // committing), a pause's commit (a disk pause keeps the files in an image), or a snapshot.
  const latest = newestHere(svc, row)
  const kept: Array<{ image: string; at: number; what: string }> = []
  const tagged = await engine.docker
    .getImage(tag)
    .inspect()
    .catch(() => null)
  if (tagged) kept.push({ image: tag, at: Date.parse(tagged.Created), what: `its last commit (${tagged.Created})` })
  const paused = await newestPauseImage(engine, row.id)
  if (paused) kept.push({ ...paused, what: `its last pause (${paused.image}, ${new Date(paused.at).toISOString()})` })
  if (latest) kept.push({ image: latest.imageRef!, at: Date.parse(latest.createdAt), what: `${latest.id} (${latest.createdAt})` })
  const newest = kept.sort((a, b) => b.at - a.at)[0]
  // under the session's own tag, so removing the pause's image later never touches the container
  if (newest && newest.image === paused?.image) newest.image = await tagForSession(engine, ctx.homeId, row.id, newest.image)
  if (newest) {
    const workspace = hasVolume ? '; /workspace is as it was' : latest ? ` and /workspace from ${latest.id}` : ' with an empty /workspace'
    return { image: newest.image, volumeFrom: hasVolume ? null : latest, note: `the container was gone: its disk came back from ${newest.what}${workspace}` }
  }
  return {
    image: row.image,
    volumeFrom: null,
    note: `the container was gone and no snapshot of it exists here: it starts from ${row.image}${hasVolume ? '; /workspace is as it was' : ' with an empty /workspace'}`,
  }
}

/** The newest image a pause of the session committed on this server (berth/ID:pause-N), if any is left. */
async function newestPauseImage(engine: Engine, sessionId: string): Promise<{ image: string; at: number } | null> {
  const images = await engine.docker.listImages({ filters: JSON.stringify({ reference: [pauseImagesOf(sessionId)] }) })
  const newest = images.sort((a, b) => b.Created - a.Created)[0]
  const image = newest?.RepoTags?.find((t) => t.startsWith(pauseImage(sessionId, 'pause-')))
  return newest && image ? { image, at: newest.Created * 1000 } : null
}

function newestHere(svc: SnapshotService, row: SessionRow): SnapshotRow | null {
  return svc.ctx.repo.forSession(row.id).find((s) => s.server === row.server && s.imageRef) ?? null
}

/** The views (tmux sessions on Berth's socket) of a session's running container. */
async function viewNames(engine: Engine, row: SessionRow): Promise<string[]> {
  if (!row.containerId) return []
  const info = await engine.docker.getContainer(row.containerId).inspect().catch(() => null)
  if (!info?.State.Running) return []
  let out = ''
  // as the session's user (a devcontainer's remoteUser): its tmux server is its own, under its uid
  const h = await startExec(engine.docker, row.containerId, { cmd: ['sh', '-c', `tmux -L ${TMUX_SOCKET} list-sessions -F '#{session_name}' 2>/dev/null || true`], user: remoteOf(row).user }, (fd, d) => {
    if (fd === 1) out += d.toString()
  }).catch(() => null)
  if (!h) return []
  await h.exit
  return out.split('\n').map((l) => l.trim()).filter((l) => /^[A-Za-z0-9._-]{1,64}$/.test(l))
}

async function recreateViews(engine: Engine, containerId: string, views: string[], row: SessionRow): Promise<void> {
  const cmds = views.map((v) => `tmux -L ${TMUX_SOCKET} new-session -d -s ${shq(v)}`).join('; ')
  const remote = remoteOf(row)
  const h = await startExec(engine.docker, containerId, { cmd: ['sh', '-c', `command -v tmux >/dev/null 2>&1 && { ${cmds}; } || true`], user: remote.user, env: remote.env }, () => undefined)
  await h.exit
}
