// The TCP ports a session listens on, read from /proc/net/tcp{,6} inside its container (works in
// any image with a `cat`, busybox included), for the previews `berth session show` lists.
import type Dockerode from 'dockerode'
import { openExec } from '../engines/exec-gate'
import { DockerStreamReader } from './docker-stream'

const LISTEN = '0A'

/** Ports in state LISTEN in /proc/net/tcp or tcp6 text, sorted, without duplicates. */
export function parseListeningPorts(text: string): number[] {
  const ports = new Set<number>()
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/)
    // sl local_address rem_address st ...
    if (cols.length < 4 || cols[3] !== LISTEN) continue
    const local = cols[1] ?? ''
    const port = parseInt(local.slice(local.lastIndexOf(':') + 1), 16)
    if (port > 0 && port <= 65535) ports.add(port)
  }
  return [...ports].sort((a, b) => a - b)
}

export async function listeningPorts(docker: Dockerode, containerId: string, timeoutMs = 3000): Promise<number[]> {
  const { stream } = await openExec(docker, containerId, { Cmd: ['cat', '/proc/net/tcp', '/proc/net/tcp6'], AttachStdout: true, AttachStderr: true }, { hijack: true, stdin: false })
  const out: Buffer[] = []
  let size = 0
  const reader = new DockerStreamReader(true, (fd, chunk) => {
    if (fd === 1 && size < 4 * 1024 * 1024) {
      out.push(chunk)
      size += chunk.length
    }
  })
  stream.on('error', () => undefined)
  stream.pipe(reader)
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      stream.destroy()
      resolve()
    }, timeoutMs)
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    let ended = false
    stream.on('end', () => (ended = true))
    reader.on('finish', done)
    stream.on('close', () => {
      if (!ended) done()
    })
  })
  return parseListeningPorts(Buffer.concat(out).toString('utf8'))
}
