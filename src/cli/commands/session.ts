import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { EnvName } from '../../shared/contract'
import { SessionState, type Session, type SessionSummary } from '../../shared/models'
import { str, strs, type Command } from '../command'
import { printFields, printIds, printJson, printTable, progressPrinter, say, UsageError } from '../output'
import { ago, bytes, duration, ignoredLine, replicaLine, when } from '../../shared/format'
import { LIMIT_OPTIONS, limitsLine, parseLimits, parseRestart, RESTART_OPTION } from './session-limits'

export function stateLabel(s: Pick<SessionSummary, 'state' | 'mode' | 'durable' | 'failure'>): string {
  if (s.state === 'paused' && s.mode) return `paused (${s.mode}${s.durable ? '' : ', not yet durable'})`
  if (s.state === 'failed' && s.failure) return 'failed'
  return s.state
}

export function showSession(s: Session): void {
  printFields([
    ['id', s.id],
    ['name', s.name],
    ['server', s.server],
    ['state', stateLabel(s)],
    ['failure', s.failure ?? undefined],
    ['image', s.image],
    ['route', s.route],
    ['ssh', s.sshLine],
    ...(s.previews ?? []).map((p, i): [string, string] => [i === 0 ? 'previews' : '', `${p.url}  (port ${p.port})`]),
    ['created', when(s.createdAt)],
    ['paused', s.state === 'paused' ? `${ago(s.updatedAt)}${s.pausedBy ? ` (by ${s.pausedBy})` : ''}` : undefined],
    ['finished', s.finishedAt ? when(s.finishedAt) : undefined],
    ['saved', s.savedAt ? when(s.savedAt) : undefined],
    ['workspace', s.workspace ? `${s.workspace.dir} (${s.workspace.branch} from ${s.workspace.base.slice(0, 12)})` : undefined],
    ['env', Object.keys(s.env).length ? Object.keys(s.env).join(', ') : undefined],
    ['secrets', s.secrets.length ? s.secrets.join(', ') : undefined],
    ['replica', s.replica ? replicaLine(s.replica) : undefined],
    ['source', s.source ? `${s.source.file} (${s.source.built ? 'built on ' + s.server + ' as ' : 'image '}${s.source.image}${s.source.user ? `, user ${s.source.user}` : ''}${s.source.ports.length ? `, ports ${s.source.ports.join(', ')}` : ''})` : undefined],
    ['ignored', s.source?.ignored.length ? s.source.ignored.join(', ') : undefined],
    ['origin', s.origin ? `${s.origin.verb} from ${s.origin.snapshot ?? '-'}, ${s.origin.memory ? 'memory restored' : 'booted from disk'}${s.origin.note ? ` (${s.origin.note})` : ''}` : undefined],
    ['paused by', s.state === 'pausing' ? (s.pausedBy ?? undefined) : undefined],
    ['activity', s.activity?.status],
    ['limits', limitsLine(s.limits)],
    ['main', s.main ? `${s.main.command.join(' ')} (${s.main.state}, restart ${s.main.restart}${s.main.exits ? `, stopped ${s.main.exits} time${s.main.exits === 1 ? '' : 's'}` : ''})` : undefined],
    ['last stop', s.main?.lastExit ? `${s.main.lastExit.sentence}` : undefined],
    ...(s.main?.lastExit?.lines ?? []).map((l): [string, string] => ['', `| ${l}`]),
    ['meter', s.meter ? meterLine(s.meter) : undefined],
  ])
}

function meterLine(m: NonNullable<Session['meter']>): string {
  const cost = m.ratePerHour ? `, cost ${m.cost.toFixed(4)} at ${m.ratePerHour}/h` : ''
  const cpuOf = m.cpuLimit ? ` of ${m.cpuLimit} cpus` : ''
  const memOf = m.memoryLimitBytes ? ` of ${bytes(m.memoryLimitBytes)}` : ''
  return `cpu ${m.cpuSeconds.toFixed(1)} s (${m.cpuPercent}% now${cpuOf}), memory ${bytes(m.memoryBytes)}${memOf} (peak ${bytes(m.peakMemoryBytes)}), disk ${bytes(m.diskBytes)}, ran ${duration(m.runningSeconds)}${cost}`
}

export function parseEnv(pairs: string[], usage: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    const key = eq > 0 ? pair.slice(0, eq) : ''
    if (!EnvName.safeParse(key).success) throw new UsageError(`not an environment value: ${pair} (expected K=V)`, usage)
    env[key] = pair.slice(eq + 1)
  }
  return env
}

const CREATE_USAGE =
  'berth session create [--server NAME] (--image IMAGE | --from SNAPSHOT | --devcontainer [DIR]) [--name N] [--env K=V]... [--workspace DIR] [--secret NAME]... [--cpus N] [--memory SIZE] [--pids N] [--restart no|on-failure|always] [--json]'

export const sessionCommands: Command[] = [
  {
    path: ['session', 'create'],
    usage: CREATE_USAGE,
    summary: 'create a session from an image on a server',
    group: 'sessions',
    options: {
      server: { type: 'string', short: 's', value: 'NAME', help: 'the server to run it on (default: local, this machine\'s engine)', complete: 'server' },
      image: { type: 'string', value: 'IMAGE', help: 'the image to start from (carried to the server when it lacks it)' },
      from: { type: 'string', value: 'SNAPSHOT', help: 'start from a snapshot instead of an image (its memory too, where it has it)', complete: 'snapshot' },
      devcontainer: {
        type: 'boolean',
        help: "start from the folder DIR's devcontainer.json (default: the --workspace folder): its image or a build of its Dockerfile on the server, env, remoteUser, forwardPorts, post-create/start commands, volumes, limits in runArgs; keys it does not support are listed (Features are not supported yet)",
      },
      name: { type: 'string', value: 'N', help: 'its name (default: made up, like calm-otter)' },
      env: { type: 'string', short: 'e', multiple: true, value: 'K=V', help: 'an environment value inside the session' },
      workspace: { type: 'string', short: 'w', value: 'DIR', help: 'a git folder to clone in; berth save merges the work back', complete: 'file' },
      secret: { type: 'string', multiple: true, value: 'NAME', help: 'a stored secret to hand in as /run/berth/secrets/NAME', complete: 'secret' },
      ...LIMIT_OPTIONS,
      restart: RESTART_OPTION,
    },
    args: [{ name: 'DIR', help: 'with --devcontainer: the project folder holding .devcontainer/devcontainer.json', complete: 'file' }],
    positionals: [0, 1],
    async run(p, io) {
      const image = str(p, 'image')
      const from = str(p, 'from')
      const workspace = str(p, 'workspace')
      const dc = p.values.devcontainer === true
      if (p.positionals.length && !dc) throw new UsageError(`unexpected argument: ${p.positionals[0]} (a folder goes with --devcontainer)`, CREATE_USAGE)
      const devDir = dc ? (p.positionals[0] ?? workspace) : undefined
      if (dc && !devDir) throw new UsageError('--devcontainer needs a folder: DIR or --workspace DIR', CREATE_USAGE)
      if ([image, from, devDir].filter(Boolean).length === 0) throw new UsageError('missing --image (or --from SNAPSHOT, or --devcontainer DIR)', CREATE_USAGE)
      if ([image, from, devDir].filter(Boolean).length > 1) throw new UsageError('give one of --image, --from and --devcontainer', CREATE_USAGE)
      const env = parseEnv(strs(p, 'env'), CREATE_USAGE)
      const limits = parseLimits(p, CREATE_USAGE)
      const restart = parseRestart(p, CREATE_USAGE)
      if (restart && from) throw new UsageError('a session from a snapshot keeps its main process\'s policy: drop --restart', CREATE_USAGE)
      const c = await io.client()
      const op = randomBytes(6).toString('hex')
      await c.call('events.subscribe', { names: ['progress'] })
      const print = progressPrinter()
      c.on('progress', (pr) => pr.op === op && print(pr))
      const s = await c.call('session.create', {
        server: str(p, 'server'),
        image,
        name: str(p, 'name'),
        env,
        workspace: workspace ? resolve(workspace) : undefined,
        from,
        devcontainer: devDir ? resolve(devDir) : undefined,
        secrets: strs(p, 'secret').length ? strs(p, 'secret') : undefined,
        limits,
        restart,
        op,
      })
      // the keys of devcontainer.json Berth did not act on, once, where the user sees them
      const ignored = ignoredLine(s.source?.ignored ?? [])
      if (ignored) process.stderr.write(`${ignored}\n`)
      if (io.json) printJson(s)
      else say(`${s.id}\n`)
      return 0
    },
  },
  {
    path: ['session', 'ls'],
    usage: 'berth session ls [--state STATE] [--server NAME] [--json]',
    summary: 'list sessions (--json: a summary of each; session show has the rest)',
    group: 'sessions',
    listing: true,
    options: {
      state: { type: 'string', value: 'STATE', help: 'only sessions in this state', complete: SessionState.options },
      server: { type: 'string', value: 'NAME', help: 'only sessions on this server', complete: 'server' },
    },
    positionals: [0, 0],
    async run(p, io) {
      const state = str(p, 'state')
      if (state && !SessionState.safeParse(state).success) {
        throw new UsageError(`not a session state: ${state}`, 'berth session ls [--state running|paused|finished|...] [--server NAME] [--json]')
      }
      const list = await (await io.client()).call('session.list', { state: state as Session['state'] | undefined, server: str(p, 'server') })
      if (io.json) printJson(list)
      else if (io.quiet) printIds(list.map((s) => s.id))
      else if (list.length === 0) say('no sessions yet: berth session create --image IMAGE\n')
      else printTable(list.map((s) => [s.id, s.name, s.server, stateLabel(s), s.image, ago(s.createdAt)]), ['ID', 'NAME', 'SERVER', 'STATE', 'IMAGE', 'CREATED'])
      return 0
    },
  },
  {
    path: ['session', 'show'],
    usage: 'berth session show ID [--json]',
    summary: 'show one session: its state, ssh line, previews, workspace, meter and where it came from',
    group: 'sessions',
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const s = await (await io.client()).call('session.show', { id: p.positionals[0]! })
      if (io.json) printJson(s)
      else showSession(s)
      return 0
    },
  },
  {
    path: ['finish'],
    usage: 'berth finish ID [--force] [--json]',
    summary: 'finish a session: its container is destroyed, its history stays',
    group: 'sessions',
    options: { force: { type: 'boolean', help: 'finish it even when its server does not answer (its container may stay there)' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const s = await (await io.client()).call('session.finish', { id: p.positionals[0]!, force: p.values.force === true })
      if (io.json) printJson(s)
      else say(`session ${s.name} finished\n`)
      return 0
    },
  },
]
