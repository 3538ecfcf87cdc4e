// `berth doctor`'s checks, each a few facts read from the running core and the machine, with the
// catalogue's sentence for what to do (src/shared/doctor.ts). Every check has a deadline: a
// server or an engine that hangs makes its check say so, never the report wait.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { CallResult } from '../../../shared/contract'
import type { DoctorCheck } from '../../../shared/contract/doctor'
import type { MemoryPause } from '../../../shared/models'
import { DOCTOR_CHECKS, type DoctorCheckId, type DoctorProblemKey } from '../../../shared/doctor'
import { within } from '../deadline'
import type { EngineChoice } from '../engines/docker-endpoint'
import type { Engine } from '../engines/engine'
import { installedHook } from '../power/sleep-hooks'
import SSHConfig from 'ssh-config'

type Facts = DoctorCheck['facts']
const ANSWER_MS = 3_000

export function ok(id: DoctorCheckId, summary: string, facts: Facts = {}): DoctorCheck {
  return { id, title: DOCTOR_CHECKS[id].title, status: 'ok', summary, problem: null, fix: null, facts }
}

export function problem<Id extends DoctorCheckId>(id: Id, key: DoctorProblemKey<Id>, summary: string, facts: Facts = {}): DoctorCheck {
  const p = (DOCTOR_CHECKS[id].problems as Record<string, { status: 'warn' | 'fail'; fix: string }>)[key]!
  return { id, title: DOCTOR_CHECKS[id].title, status: p.status, summary, problem: key, fix: p.fix, facts }
}

const LATE = Symbol('late')

/** What `work` answers, or an error saying `what` did not answer in time. */
async function answer<T>(work: Promise<T>, what: string, ms = ANSWER_MS): Promise<T> {
  const r = await within(work, ms, () => LATE)
  if (r === LATE) throw new Error(`${what} did not answer within ${ms / 1000} s`)
  return r as T
}

export async function engineCheck(choice: EngineChoice, engine: Engine, client?: { socket: string | null; why: string }): Promise<DoctorCheck> {
  const facts: Facts = { socket: choice.socket, source: choice.source, why: choice.why, lookedAt: choice.lookedAt }
  if (choice.problem) return problem('engine', 'context', choice.problem, facts)
  let version: string
  try {
    // a ping first: the facts are cached from the first answer, the engine may have gone since
    const f = await answer(engine.ready().then(() => engine.facts()), `the Docker engine on ${choice.socket}`)
    version = f.version
    Object.assign(facts, { version: f.version, os: f.os })
  } catch (e) {
    const message = (e as Error).message
    const key = /permission denied/i.test(message) ? 'denied' : 'unanswered'
    return problem('engine', key, `${message.replace(/^server local is unreachable: /, '')} (chosen: ${choice.why})`, facts)
  }
  const summary = `Docker ${version} on ${choice.socket}: ${choice.why}`
  if (client && client.socket !== choice.socket) {
    facts.shellSocket = client.socket
    return problem('engine', 'differs', `${summary}; this shell would use ${client.socket ?? 'none'} (${client.why})`, facts)
  }
  return ok('engine', summary, facts)
}

/** The one place doctor learns whether a server pauses with memory (point it at Server.memoryPause once the probe reports there). */
export async function memoryPauseCheck(server: string, memoryPause: (server: string) => Promise<MemoryPause>): Promise<DoctorCheck> {
  let m: MemoryPause
  try {
    m = await answer(memoryPause(server), `the engine of ${server}`, 15_000)
  } catch (e) {
    return problem('memory-pause', 'unknown', (e as Error).message, { server })
  }
  const facts: Facts = { server, available: m.available, how: m.how, note: m.note }
  if (!m.available) return problem('memory-pause', 'unavailable', m.note ?? 'memory checkpoints are not available', facts)
  if (m.how === 'docker' && m.note) return problem('memory-pause', 'slow', m.note, facts)
  return ok('memory-pause', m.how === 'fast' ? 'yes: CRIU checkpoints written straight to disk' : "yes: through Docker's checkpoint API", facts)
}

export function portChecks(routes: CallResult<'routes.info'>, wanted: { gateway: number; preview: number }): DoctorCheck[] {
  const g = routes.gateway
  const p = routes.preview
  const gateway = !g.listening
    ? problem('gateway', 'not-listening', `the ssh gateway does not listen (its setting asks for port ${wanted.gateway})`, { port: wanted.gateway })
    : g.port !== wanted.gateway
      ? problem('gateway', 'moved', `listens on ${g.host}:${g.port}; ${wanted.gateway} was taken`, { port: g.port, wanted: wanted.gateway })
      : ok('gateway', `listens on ${g.host}:${g.port} (host key ${g.hostKeyFingerprint})`, { port: g.port })
  const previews = !p.listening
    ? problem('previews', 'not-listening', `the preview proxy does not listen (its setting asks for port ${wanted.preview})`, { port: wanted.preview })
    : p.port !== wanted.preview
      ? problem('previews', 'moved', `listens on ${p.host}:${p.port}; ${wanted.preview} was taken`, { port: p.port, wanted: wanted.preview })
      : ok('previews', `http://ROUTE-PORT.localhost:${p.port}/`, { port: p.port })
  return [gateway, previews]
}

/** Whether ~/.ssh/config includes Berth's file before any Host or Match block. */
export function sshConfigCheck(berthFile: string, includeLine: string, userConfig = join(homedir(), '.ssh', 'config')): DoctorCheck {
  let text: string
  try {
    text = readFileSync(userConfig, 'utf8')
  } catch {
    return problem('ssh-config', 'no-include', `there is no ${userConfig}; add the line: ${includeLine}`, { file: userConfig })
  }
  const names = (v: unknown) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.map((x: { val: string }) => x.val) : [])
  const mentions = (d: { param?: string; value?: unknown }) => /^include$/i.test(d.param ?? '') && names(d.value).some((n) => n.replace(/^~/, homedir()) === berthFile)
  const lines = SSHConfig.parse(text)
  const top = lines.findIndex((l) => 'param' in l && mentions(l))
  const firstBlock = lines.findIndex((l) => 'config' in l)
  if (top >= 0 && (firstBlock < 0 || top < firstBlock)) return ok('ssh-config', `${userConfig} includes ${berthFile}: ssh ROUTE.berth works`, { file: userConfig })
  const nested = lines.some((l) => 'config' in l && (l as { config: Array<{ param?: string; value?: unknown }> }).config.some((d) => mentions(d)))
  if (top >= 0 || nested) return problem('ssh-config', 'include-late', `${userConfig} includes ${berthFile} inside a Host or Match block`, { file: userConfig })
  return problem('ssh-config', 'no-include', `${userConfig} does not include ${berthFile}; add at its top: ${includeLine}`, { file: userConfig })
}

export function sleepHookCheck(platform: NodeJS.Platform, exists: (path: string) => boolean): DoctorCheck {
  if (platform !== 'linux' && platform !== 'darwin') return problem('sleep-hook', 'missing', `Berth has no sleep hook for ${platform}`, {})
  const hook = installedHook(platform)
  if (!hook) return problem('sleep-hook', 'missing', platform === 'linux' ? 'no hook in systemd\'s system-sleep folders' : 'no Berth line in ~/.sleep (sleepwatcher)', {})
  if (!hook.program || !exists(hook.program)) return problem('sleep-hook', 'stale', `${hook.path} runs ${hook.program ?? 'something unreadable'}, which does not exist`, { path: hook.path, program: hook.program })
  return ok('sleep-hook', `${hook.path} runs ${hook.program} before and after sleep`, { path: hook.path, program: hook.program })
}

export async function serversCheck(servers: Array<{ name: string; engine: () => Engine }>): Promise<DoctorCheck> {
  if (servers.length === 0) return ok('servers', 'no connected servers (berth server add NAME ADDRESS connects one)', { servers: [] })
  const results = await Promise.all(
    servers.map(async (s) => {
      try {
        await answer(s.engine().ready(), `server ${s.name}`)
        return { name: s.name, error: null }
      } catch (e) {
        return { name: s.name, error: (e as Error).message }
      }
    }),
  )
  const down = results.filter((r) => r.error)
  const facts: Facts = { servers: results.map((r) => r.name), unreachable: down.map((r) => r.name) }
  if (down.length) return problem('servers', 'unreachable', down.map((r) => r.error).join('; '), facts)
  return ok('servers', `${results.map((r) => r.name).join(', ')} answer${results.length === 1 ? 's' : ''}`, facts)
}
