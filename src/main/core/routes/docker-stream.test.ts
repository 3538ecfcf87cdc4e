import { describe, expect, it } from 'vitest'
import { DockerStreamReader, firstLineTap } from './docker-stream'

const frame = (fd: number, text: string) => {
  const payload = Buffer.from(text)
  const h = Buffer.alloc(8)
  h[0] = fd
  h.writeUInt32BE(payload.length, 4)
  return Buffer.concat([h, payload])
}

async function feed(reader: DockerStreamReader, chunks: Buffer[]): Promise<void> {
  for (const c of chunks) await new Promise<void>((r) => reader.write(c, () => r()))
  await new Promise<void>((r) => reader.end(() => r()))
}

describe('reading a Docker attach stream', () => {
  it('splits stdout and stderr frames, whatever the chunk boundaries', async () => {
    const all = Buffer.concat([frame(1, 'hello '), frame(2, 'oops'), frame(1, 'world'), frame(1, '')])
    for (const size of [1, 3, 7, 8, 9, 1000]) {
      const got: Record<number, string> = { 1: '', 2: '' }
      const reader = new DockerStreamReader(true, (fd, chunk) => {
        got[fd] += chunk.toString()
      })
      const chunks: Buffer[] = []
      for (let i = 0; i < all.length; i += size) chunks.push(all.subarray(i, i + size))
      await feed(reader, chunks)
      expect(got, `chunks of ${size}`).toEqual({ 1: 'hello world', 2: 'oops' })
    }
  })

  it('waits for a slow sink before taking the next chunk (backpressure)', async () => {
    const order: string[] = []
    let release: () => void = () => undefined
    const reader = new DockerStreamReader(false, (_fd, chunk) => {
      order.push(`take ${chunk}`)
      return new Promise<void>((r) => (release = () => (order.push(`done ${chunk}`), r())))
    })
    reader.write(Buffer.from('a'))
    reader.write(Buffer.from('b'))
    await new Promise((r) => setTimeout(r, 10))
    expect(order).toEqual(['take a'])
    release()
    await new Promise((r) => setTimeout(r, 10))
    expect(order).toEqual(['take a', 'done a', 'take b'])
    release()
  })

  it('hands over the first line of one fd (the wrapper’s pid) and passes the rest untouched', () => {
    const seen: string[] = []
    const out: string[] = []
    const sink = firstLineTap(2, (l) => seen.push(l), (fd, c) => void out.push(`${fd}:${c}`))
    sink(1, Buffer.from('out before'))
    sink(2, Buffer.from('12'))
    sink(2, Buffer.from('34\r\nreal err'))
    sink(2, Buffer.from(' more'))
    expect(seen).toEqual(['1234'])
    expect(out).toEqual(['1:out before', '2:real err', '2: more'])
  })
})
