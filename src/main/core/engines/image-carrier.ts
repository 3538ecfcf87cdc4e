// Carries an image from a server that has it to one that does not, over Berth's own connections
// (connected servers may have no registry). Only the layers the target lacks travel: moby's loader
// accepts an archive whose manifest names layers it already has (verified in the recipe).
import { PassThrough, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { ProgressReporter } from '../progress'
import type { Engine } from './engine'
import { runnerFor } from './server-script/server-runner'
import { isNotFound } from './docker-errors'

export async function imageLayers(engine: Engine, ref: string): Promise<string[] | null> {
  try {
    const info = await engine.docker.getImage(ref).inspect()
    return info.RootFS?.Layers ?? []
  } catch (e) {
    if (isNotFound(e)) return null
    throw e
  }
}

/** Every layer (diff id) any image on the engine has. */
export async function layersOn(engine: Engine): Promise<Set<string>> {
  const images = await engine.docker.listImages({ all: true })
  const out = new Set<string>()
  for (const img of images) {
    const layers = await imageLayers(engine, img.Id).catch(() => null)
    for (const l of layers ?? []) out.add(l)
  }
  return out
}

interface SavedImage {
  dir: string
  manifest: Array<{ Config: string; RepoTags: string[] | null; Layers: string[] }>
  sizes: Map<string, number>
}

/** Saves an image into a private folder on the source server; returns its manifest and entry sizes. */
async function saveOnSource(source: Engine, homeId: string, ref: string): Promise<SavedImage> {
  const r = await runnerFor(source, homeId).run(['image-save', ref])
  if (r.code !== 0) throw new BerthError('transfer', `could not save ${ref} on ${source.name}: ${oneSentence(r.stdout.replace(/^error /, '') || r.stderr || 'docker save failed')}`)
  const [head, manifestText] = r.stdout.split('\n---\n')
  const lines = (head ?? '').trim().split('\n')
  const dir = lines.shift()!.trim()
  const sizes = new Map<string, number>()
  for (const l of lines) {
    const m = /^(\d+)\s+(.+)$/.exec(l.trim())
    if (m) sizes.set(m[2]!, Number(m[1]) * 1024)
  }
  return { dir, manifest: JSON.parse(manifestText ?? '[]') as SavedImage['manifest'], sizes }
}

export interface CarryResult {
  bytes: number
  layersSent: number
  layersSkipped: number
}

/**
 * Carries `ref` from `source` to `target`. With `have` (the target's layers), only missing layers
 * travel. Cleans up the source's temporary folder whatever happens.
 */
export async function carryImage(opts: {
  source: Engine
  target: Engine
  ref: string
  /** the Berth home whose folders on the source the archive goes through */
  homeId: string
  progress?: ProgressReporter | undefined
  have?: Set<string>
}): Promise<CarryResult> {
  const { source, target, ref, progress, homeId } = opts
  const layers = await imageLayers(source, ref)
  if (!layers) throw new BerthError('not_found', `image not found on ${source.name}: ${ref}`)
  const have = opts.have ?? (await layersOn(target))
  progress?.stage('save', `saving ${ref} on ${source.name}`)
  const saved = await saveOnSource(source, homeId, ref)
  try {
    const entry = saved.manifest[0]
    if (!entry || entry.Layers.length !== layers.length) {
      throw new BerthError('damaged', `the archive of ${ref} does not match its layers`)
    }
    const skip = new Set<string>()
    entry.Layers.forEach((path, i) => {
      if (have.has(layers[i]!)) skip.add(path.split('/')[0]!)
    })
    const keep = [...saved.sizes.keys()].filter((name) => !skip.has(name))
    const total = keep.reduce((n, name) => n + (saved.sizes.get(name) ?? 0), 0)
    progress?.stage('send', `sending ${entry.Layers.length - skip.size} of ${entry.Layers.length} layers to ${target.name}`, total)
    const tar = await runnerFor(source, homeId).stream(['image-send', saved.dir, ...keep])
    tar.stdin.end()
    let sent = 0
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        sent += chunk.length
        progress?.bytes('send', `sending ${ref} to ${target.name}`, sent, total)
        cb(null, chunk)
      },
    })
    const body = new PassThrough()
    const stderr: Buffer[] = []
    tar.stderr.on('data', (d: Buffer) => stderr.push(d))
    const piping = pipeline(tar.stdout, counter, body)
    const response = (await target.docker.loadImage(body, { quiet: true })) as NodeJS.ReadableStream
    const loadOutput = await readAll(response)
    await piping
    const code = await tar.exit
    if (code !== 0) throw new BerthError('transfer', `sending ${ref} failed on ${source.name}: ${oneSentence(Buffer.concat(stderr).toString() || 'tar failed')}`)
    const failure = loadError(loadOutput)
    if (failure) throw new BerthError('transfer', `${target.name} could not load ${ref}: ${failure}`)
    if (!(await imageLayers(target, ref))) throw new BerthError('transfer', `${target.name} did not keep ${ref} after loading it`)
    progress?.done('send', `carried ${ref} to ${target.name}`, sent)
    return { bytes: sent, layersSent: entry.Layers.length - skip.size, layersSkipped: skip.size }
  } finally {
    await runnerFor(source, homeId).run(['image-saved-remove', saved.dir]).catch(() => undefined)
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string))
  return Buffer.concat(chunks).toString('utf8')
}

function loadError(output: string): string | null {
  for (const line of output.split('\n')) {
    if (!line.trim()) continue
    try {
      const msg = JSON.parse(line) as { error?: string; errorDetail?: { message?: string } }
      if (msg.error) return oneSentence(msg.errorDetail?.message ?? msg.error)
    } catch {
      // not JSON: ignore progress text
    }
  }
  return null
}

/** Makes sure `ref` is on `target`, carrying it from the first server that has it. */
export async function ensureImage(opts: {
  target: Engine
  ref: string
  homeId: string
  candidates: () => Engine[]
  progress?: ProgressReporter | undefined
}): Promise<CarryResult | null> {
  if (await imageLayers(opts.target, opts.ref)) return null
  for (const source of opts.candidates()) {
    if (source.name === opts.target.name) continue
    const layers = await imageLayers(source, opts.ref).catch(() => null)
    if (!layers) continue
    return await carryImage({ source, target: opts.target, ref: opts.ref, homeId: opts.homeId, progress: opts.progress })
  }
  throw new BerthError(
    'not_found',
    `image not found: ${opts.ref} is on none of Berth's servers; build or pull it on one of them first`,
  )
}
