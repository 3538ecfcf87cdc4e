// Reading the session's /etc/passwd through the Docker API: what a hostile session may have put
// there (a link loop, a huge file, a device, an archive that never ends) yields nothing, in time.
import type Dockerode from 'dockerode'
import { PassThrough, Readable } from 'node:stream'
import { pack } from 'tar-stream'
import { describe, expect, it } from 'vitest'
import { readContainerFile } from './container-user'

type Entry = { name: string; type?: 'file' | 'symlink' | 'character-device'; linkname?: string; body?: string | Buffer }

async function tarOf(entry: Entry): Promise<Buffer> {
  const p = pack()
  const chunks: Buffer[] = []
  p.on('data', (d: unknown) => void chunks.push(d as Buffer))
  const done = new Promise<void>((r) => p.on('end', () => r()))
  const header = { name: entry.name, type: entry.type ?? 'file', linkname: entry.linkname }
  if (header.type === 'file') p.entry(header, entry.body ?? '')
  else p.entry(header, '')
  p.finalize()
  await done
  return Buffer.concat(chunks)
}

/** A container whose archive API answers from `files` (path -> entry); `hang` paths never finish. */
function container(files: Record<string, Entry | 'hang'>): { c: Dockerode.Container; asked: string[] } {
  const asked: string[] = []
  const c = {
    getArchive: async ({ path }: { path: string }) => {
      asked.push(path)
      const f = files[path]
      if (!f) throw new Error(`no such file: ${path}`)
      if (f === 'hang') return new PassThrough()
      return Readable.from([await tarOf(f)])
    },
  } as unknown as Dockerode.Container
  return { c, asked }
}

describe("the session's own files, read as untrusted data", () => {
  it('reads a regular file, following a relative link', async () => {
    const { c, asked } = container({
      '/etc/passwd': { name: 'passwd', type: 'symlink', linkname: 'passwd.real' },
      '/etc/passwd.real': { name: 'passwd.real', body: 'app:x:1000:1000::/home/app:/bin/sh\n' },
    })
    expect(await readContainerFile(c, '/etc/passwd')).toBe('app:x:1000:1000::/home/app:/bin/sh\n')
    expect(asked).toEqual(['/etc/passwd', '/etc/passwd.real'])
  })

  it('gives up on a link loop, a device, a file over 1 MiB and a missing file', async () => {
    const loop = container({ '/etc/passwd': { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' } })
    expect(await readContainerFile(loop.c, '/etc/passwd')).toBeUndefined()
    expect(loop.asked).toHaveLength(5)
    const device = container({ '/etc/passwd': { name: 'passwd', type: 'character-device' } })
    expect(await readContainerFile(device.c, '/etc/passwd')).toBeUndefined()
    const huge = container({ '/etc/passwd': { name: 'passwd', body: Buffer.alloc((1 << 20) + 1, 'a') } })
    expect(await readContainerFile(huge.c, '/etc/passwd')).toBeUndefined()
    expect(await readContainerFile(container({}).c, '/etc/passwd')).toBeUndefined()
  })

  it('gives up on an archive that never ends, at its deadline', async () => {
    const t0 = Date.now()
    expect(await readContainerFile(container({ '/etc/passwd': 'hang' }).c, '/etc/passwd', 300)).toBeUndefined()
    expect(Date.now() - t0).toBeLessThan(2000)
  })
})
