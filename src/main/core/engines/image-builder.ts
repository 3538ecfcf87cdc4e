// Builds an image on a server from a build context sent as a tar, through the engine's Docker API
// (the same call over the local socket and over a connected server's ssh connection). The build
// runs where the session will run; the image is then there like any pulled or carried one.
import { BerthError, oneSentence } from '../../../shared/errors'
import type { ProgressReporter } from '../progress'
import type { Engine } from './engine'

export interface BuildOptions {
  tag: string
  /** the Dockerfile's path inside the context tar */
  dockerfile: string
  args: Record<string, string>
  target?: string | undefined
  labels?: Record<string, string>
  /** the whole build's deadline */
  ms: number
}

interface BuildMessage {
  stream?: string
  error?: string
  errorDetail?: { message?: string }
}

/** Builds `opts.tag` on `engine` from `context` (a tar stream); throws the build's own error when it fails. */
export async function buildImageOn(engine: Engine, context: NodeJS.ReadableStream, opts: BuildOptions, progress?: ProgressReporter): Promise<void> {
  progress?.stage('build', `building ${opts.tag} on ${engine.name}`)
  const output = (await engine.docker.buildImage(context, {
    t: opts.tag,
    dockerfile: opts.dockerfile,
    buildargs: opts.args,
    ...(opts.target ? { target: opts.target } : {}),
    labels: opts.labels ?? {},
    rm: true,
    forcerm: true,
  })) as NodeJS.ReadableStream & { destroy?: () => void }
  // a context that fails to read half way fails the build, not the daemon
  context.on('error', (e: Error) => output.destroy?.())
  const last: string[] = []
  let failure: string | null = null
  let timer: NodeJS.Timeout | undefined
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => {
        output.destroy?.()
        reject(new BerthError('timeout', `the build of ${opts.tag} on ${engine.name} took over ${Math.round(opts.ms / 1000)} s and was stopped`))
      }, opts.ms)
      engine.docker.modem.followProgress(
        output,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (m: BuildMessage) => {
          if (m.error) failure = m.errorDetail?.message ?? m.error
          for (const line of (m.stream ?? '').split('\n')) {
            const t = line.trim()
            if (!t) continue
            last.push(t)
            if (last.length > 8) last.shift()
            if (/^Step \d+\/\d+/.test(t)) progress?.stage('build', `${engine.name}: ${t.slice(0, 200)}`)
          }
        },
      )
    })
  } catch (e) {
    if (e instanceof BerthError) throw e
    throw new BerthError('engine', `the build on ${engine.name} failed: ${oneSentence((e as Error).message)}`)
  } finally {
    clearTimeout(timer)
  }
  if (failure) {
    const said = last.filter((l) => !/^(Step \d|--->|Removing intermediate)/.test(l)).slice(-4).join(' | ')
    throw new BerthError('engine', `the build on ${engine.name} failed: ${oneSentence(failure)}${said ? ` (last output: ${said.slice(0, 600)})` : ''}`)
  }
  progress?.done('build', `built ${opts.tag} on ${engine.name}`)
}
