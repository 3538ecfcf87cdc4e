// Reads a project's devcontainer.json the way the specification does (JSON with comments and
// trailing commas, through Microsoft's jsonc-parser, the parser the reference implementation
// @devcontainers/cli uses) and maps what Berth supports onto a session. Everything else is named
// in `ignored`, so the user is told once at create and nothing is dropped silently. The file comes
// from a folder Berth does not trust: values are checked here, paths again where they are read.
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser'
import { z } from 'zod'
import { BerthError } from '../../../shared/errors'
import { Limits } from '../../../shared/models'
import { parseSize } from '../../../shared/sizes'

/** One lifecycle command: argv run directly (the array form) or through /bin/sh -c (the string form). */
export interface LifecycleCommand {
  /** the key of the object form (commands of one object run side by side) */
  name?: string
  argv: string[]
}

export interface DevcontainerBuild {
  /** paths as written, relative to the folder of devcontainer.json (checked when read) */
  dockerfile: string
  context: string
  args: Record<string, string>
  target?: string
}

export interface DevcontainerPlan {
  image?: string
  build?: DevcontainerBuild
  name?: string
  containerEnv: Record<string, string>
  remoteEnv: Record<string, string>
  remoteUser?: string
  forwardPorts: number[]
  postCreate: LifecycleCommand[]
  postStart: LifecycleCommand[]
  /** named volumes (`type=volume`): source volume name, target path in the session */
  volumes: Array<{ source: string; target: string }>
  limits: Limits
  /** keys (and parts of keys) Berth does not act on, as the user would name them */
  ignored: string[]
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
// Docker's own rule for a volume name
const VOLUME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
// a user as Docker's exec takes it: name or uid, optionally :group or :gid
const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,31})?$/

const Env = z.record(z.string().regex(ENV_NAME, 'an environment name is letters, digits and _'), z.string().max(32_768))
const CommandForm = z.union([z.string().min(1).max(16_384), z.array(z.string().max(16_384)).min(1).max(256)])
const Lifecycle = z.union([CommandForm, z.record(z.string().max(64), CommandForm)])

/** Where devcontainer.json lives in a project folder, in the specification's order. */
export const DEVCONTAINER_FILES = ['.devcontainer/devcontainer.json', '.devcontainer.json', 'devcontainer.json'] as const

/** Why a parse failed, with its line and column (1-based) in the file. */
function parseFailure(text: string, errors: ParseError[], file: string): BerthError {
  const e = errors[0]!
  const before = text.slice(0, e.offset)
  const line = before.split('\n').length
  const column = e.offset - before.lastIndexOf('\n')
  return new BerthError('usage', `${file} is not valid JSON with comments: ${printParseErrorCode(e.error)} at line ${line}, column ${column}`)
}

function check<T>(schema: z.ZodType<T>, value: unknown, key: string, file: string): T {
  const r = schema.safeParse(value)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  const where = [key, ...issue.path.map(String)].join('.')
  // a record's bad key: zod's own words are only "Invalid key in record"; the key's rule says why
  const inner = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined
  throw new BerthError('usage', `${file}: ${where}: ${inner ?? issue.message}`)
}

/** The string form runs through the shell, the array form as it is (the specification's rule). */
function commandsOf(value: z.infer<typeof Lifecycle>): LifecycleCommand[] {
  const one = (c: z.infer<typeof CommandForm>): string[] => (typeof c === 'string' ? ['/bin/sh', '-c', c] : c)
  if (typeof value === 'string' || Array.isArray(value)) return [{ argv: one(value) }]
  return Object.entries(value).map(([name, c]) => ({ name, argv: one(c) }))
}

/** A `mounts` entry: Docker's --mount text (`source=x,target=/y,type=volume`) or the object form. */
function mountOf(m: unknown): { type: string; source: string; target: string } | null {
  if (typeof m === 'string') {
    const fields: Record<string, string> = {}
    for (const part of m.split(',')) {
      const at = part.indexOf('=')
      if (at > 0) fields[part.slice(0, at).trim().toLowerCase()] = part.slice(at + 1).trim()
    }
    return { type: fields.type ?? 'volume', source: fields.source ?? fields.src ?? '', target: fields.target ?? fields.destination ?? fields.dst ?? '' }
  }
  if (m && typeof m === 'object') {
    const o = m as Record<string, unknown>
    return { type: String(o.type ?? ''), source: String(o.source ?? ''), target: String(o.target ?? '') }
  }
  return null
}

/** The limits `runArgs` names (--cpus, --memory/-m, --pids-limit); every other argument is ignored and named. */
function runArgsOf(args: string[], file: string): { limits: Limits; ignored: string[] } {
  const limits: Limits = {}
  const ignored: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const eq = arg.indexOf('=')
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const known = ['--cpus', '--memory', '-m', '--pids-limit'].includes(flag)
    if (!known) {
      ignored.push(`runArgs ${arg}`)
      continue
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i]
    if (value === undefined) throw new BerthError('usage', `${file}: runArgs ${flag} has no value`)
    if (flag === '--cpus') {
      if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) throw new BerthError('usage', `${file}: runArgs --cpus ${value} is not a number of cpus`)
      limits.cpus = Number(value)
    } else if (flag === '--pids-limit') {
      if (!/^\d+$/.test(value)) throw new BerthError('usage', `${file}: runArgs --pids-limit ${value} is not a number of processes`)
      limits.pids = Number(value)
    } else {
      const bytes = parseSize(value)
      if (bytes === undefined) throw new BerthError('usage', `${file}: runArgs ${flag} ${value} is not a size`)
      limits.memoryBytes = bytes
    }
  }
  return { limits: check(Limits, limits, 'runArgs', file), ignored }
}

/** A forwarded port: a number, or "host:port" / "port" text whose host is the session itself. */
function portOf(p: unknown): number | null {
  const n = typeof p === 'number' ? p : typeof p === 'string' ? Number(/^(?:(?:localhost|127\.0\.0\.1):)?(\d{1,5})$/.exec(p)?.[1] ?? NaN) : NaN
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null
}

const HANDLED = new Set([
  'image',
  'build',
  'dockerFile',
  'context',
  'name',
  'containerEnv',
  'remoteEnv',
  'remoteUser',
  'forwardPorts',
  'postCreateCommand',
  'postStartCommand',
  'mounts',
  'runArgs',
  '$schema',
])

/** Reads devcontainer.json text; `file` names it in messages. Throws a usage error the user can act on. */
export function parseDevcontainer(text: string, file: string): DevcontainerPlan {
  const errors: ParseError[] = []
  const raw: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
  if (errors.length) throw parseFailure(text, errors, file)
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new BerthError('usage', `${file} does not hold an object`)
  const o = raw as Record<string, unknown>
  const ignored: string[] = []
  for (const key of Object.keys(o)) {
    if (HANDLED.has(key)) continue
    // name the parts of an object of tools' settings (customizations.vscode), the way users know them
    const value = o[key]
    if (key === 'customizations' && value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length) {
      for (const tool of Object.keys(value)) ignored.push(`customizations.${tool}`)
    } else ignored.push(key)
  }

  const plan: DevcontainerPlan = {
    containerEnv: o.containerEnv === undefined ? {} : check(Env, o.containerEnv, 'containerEnv', file),
    remoteEnv: {},
    forwardPorts: [],
    postCreate: o.postCreateCommand === undefined ? [] : commandsOf(check(Lifecycle, o.postCreateCommand, 'postCreateCommand', file)),
    postStart: o.postStartCommand === undefined ? [] : commandsOf(check(Lifecycle, o.postStartCommand, 'postStartCommand', file)),
    volumes: [],
    limits: {},
    ignored,
  }

  // remoteEnv may set a value to null: the variable is unset for the user's processes
  if (o.remoteEnv !== undefined) {
    const env = check(z.record(z.string().regex(ENV_NAME, 'an environment name is letters, digits and _'), z.string().max(32_768).nullable()), o.remoteEnv, 'remoteEnv', file)
    for (const [k, v] of Object.entries(env)) {
      if (v === null) ignored.push(`remoteEnv.${k} (unsetting a variable)`)
      else plan.remoteEnv[k] = v
    }
  }

  if (o.remoteUser !== undefined) plan.remoteUser = check(z.string().regex(USER, 'a user is a name or uid, optionally :group'), o.remoteUser, 'remoteUser', file)
  if (o.name !== undefined) plan.name = check(z.string().max(200), o.name, 'name', file)

  const build = o.build ?? (o.dockerFile !== undefined ? { dockerfile: o.dockerFile, context: o.context } : undefined)
  if (build !== undefined) {
    const b = check(
      z.object({
        dockerfile: z.string().min(1).max(4096),
        context: z.string().min(1).max(4096).optional(),
        args: z.record(z.string().max(256), z.string().max(32_768)).optional(),
        target: z.string().max(128).optional(),
      }).passthrough(),
      build,
      o.build !== undefined ? 'build' : 'dockerFile',
      file,
    )
    for (const key of Object.keys(b)) if (!['dockerfile', 'context', 'args', 'target'].includes(key)) ignored.push(`build.${key}`)
    plan.build = { dockerfile: b.dockerfile, context: b.context ?? '.', args: b.args ?? {}, ...(b.target ? { target: b.target } : {}) }
  }
  if (o.image !== undefined) plan.image = check(z.string().min(1).max(256), o.image, 'image', file)
  if (plan.image && plan.build) {
    // the specification builds when both are there; the image is then only a name
    ignored.push('image (build is used)')
    delete plan.image
  }
  if (!plan.image && !plan.build) throw new BerthError('usage', `${file} names neither an image nor a build; Berth needs one of them (Docker Compose files are not supported yet)`)

  if (o.forwardPorts !== undefined) {
    for (const p of check(z.array(z.union([z.number(), z.string()])).max(64), o.forwardPorts, 'forwardPorts', file)) {
      const port = portOf(p)
      if (port === null) ignored.push(`forwardPorts ${String(p)}`)
      else if (!plan.forwardPorts.includes(port)) plan.forwardPorts.push(port)
    }
  }

  if (o.mounts !== undefined) {
    for (const m of check(z.array(z.unknown()).max(32), o.mounts, 'mounts', file)) {
      const mount = mountOf(m)
      const shown = typeof m === 'string' ? m : JSON.stringify(m)
      if (!mount || mount.type !== 'volume') {
        ignored.push(`mounts ${shown.slice(0, 120)} (only volumes)`)
        continue
      }
      if (!VOLUME_NAME.test(mount.source)) throw new BerthError('usage', `${file}: mounts: ${JSON.stringify(mount.source.slice(0, 80))} is not a volume name`)
      if (!/^\/[^\0]*$/.test(mount.target) || mount.target.split('/').includes('..') || mount.target.length > 1024) {
        throw new BerthError('usage', `${file}: mounts: the target ${JSON.stringify(mount.target.slice(0, 80))} is not an absolute path`)
      }
      if (mount.target === '/workspace' || mount.target.startsWith('/run/berth')) throw new BerthError('usage', `${file}: mounts: ${mount.target} is Berth's own`)
      plan.volumes.push({ source: mount.source, target: mount.target })
    }
  }

  if (o.runArgs !== undefined) {
    const r = runArgsOf(check(z.array(z.string().max(4096)).max(256), o.runArgs, 'runArgs', file), file)
    plan.limits = r.limits
    ignored.push(...r.ignored)
  }
  return plan
}
