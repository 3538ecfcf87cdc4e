// Test images built from a small Dockerfile on a real engine (Docker's own builder, from images the
// test host already holds: nothing is pulled).
import type Dockerode from 'dockerode'
import { pack } from 'tar-stream'

export async function buildImage(docker: Dockerode, tag: string, files: Record<string, string>): Promise<void> {
  const tar = pack()
  for (const [name, text] of Object.entries(files)) tar.entry({ name }, text)
  tar.finalize()
  const stream = await docker.buildImage(tar as unknown as NodeJS.ReadableStream, { t: tag, rm: true, forcerm: true })
  const out = await new Promise<Array<{ error?: string }>>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, res: Array<{ error?: string }>) => (err ? reject(err) : resolve(res))),
  )
  const failed = out.find((o) => o.error)
  if (failed) throw new Error(`docker build ${tag}: ${failed.error}`)
}

export async function removeImage(docker: Dockerode, tag: string): Promise<void> {
  await docker.getImage(tag).remove({ force: true }).catch(() => undefined)
}
