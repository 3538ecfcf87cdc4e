// Joins a process in a container to an ssh channel: bytes go straight through (no re-encoding),
// with backpressure both ways, and what the gateway holds for one channel stays bounded.
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ServerChannel } from 'ssh2'
import type { ContainerProcess } from './container-process'
import { DockerStreamReader, firstLineTap, type Sink } from './docker-stream'

export interface ChannelBounds {
  /** past this many bytes queued on the client's socket, output waits until the socket drains */
  socketHighWater: number
  /** past this many bytes a client sent beyond its window, the channel is cut */
  channelInboxLimit: number
}

/**
 * ssh2 checks the receive window with `window === 0`, so one packet larger than what is left makes
 * it negative and every later packet is accepted: a client could make the gateway buffer without
 * end. This cuts a channel whose unread input passes the bound.
 */
export function guardInbox(channel: Duplex, limit: number, onOverrun: () => void): void {
  const push = channel.push.bind(channel)
  let cut = false
  channel.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (cut) return false
    const r = push(chunk, encoding)
    if (channel.readableLength > limit) {
      cut = true
      onOverrun()
    }
    return r
  }
}

/** Waits until the client's socket has room again (a client that stops reading stalls the source). */
function socketRoom(socket: Socket | undefined, high: number): Promise<void> | void {
  if (!socket || socket.destroyed || socket.writableLength <= high) return
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.on('drain', done)
    socket.on('close', done)
  })
}

/** A sink that writes to the channel (stdout) or its stderr, resolving when ssh2 has sent it. */
export function channelSink(channel: ServerChannel, socket: Socket | undefined, bounds: ChannelBounds, onTraffic: () => void): Sink {
  return (fd, chunk) => {
    onTraffic()
    const target = fd === 2 ? channel.stderr : channel
    return new Promise<void>((resolve) => {
      target.write(chunk, () => resolve())
    }).then(() => socketRoom(socket, bounds.socketHighWater))
  }
}

export interface Piped {
  /** the exit code, once all output reached the channel (null: unknown) */
  done: Promise<number | null>
  /** the process's pid in the container, once it reported it */
  pid(): number | undefined
  /** stops everything (the client went away) */
  abort(): void
}

export function pipeProcess(
  proc: ContainerProcess,
  channel: ServerChannel,
  socket: Socket | undefined,
  bounds: ChannelBounds,
  onTraffic: () => void,
): Piped {
  let pid: number | undefined
  const sink = firstLineTap(proc.multiplexed ? 2 : 1, (line) => {
    const n = Number(line.trim())
    if (Number.isInteger(n) && n > 1) pid = n
  }, channelSink(channel, socket, bounds, onTraffic))
  const reader = new DockerStreamReader(proc.multiplexed, sink)
  reader.on('error', () => proc.stream.destroy())
  proc.stream.on('error', () => undefined)
  proc.stream.pipe(reader)
  channel.on('data', onTraffic)
  channel.pipe(proc.stream)
  let ended = false
  proc.stream.on('end', () => (ended = true))
  const done = new Promise<number | null>((resolve) => {
    let settled = false
    const finish = () => {
      if (settled) return
      settled = true
      void proc.exitCode().then(resolve)
    }
    reader.on('finish', finish)
    // cut without an end: the output is incomplete, but the exit code may still be known
    proc.stream.on('close', () => {
      if (!ended) finish()
    })
  })
  return {
    done,
    pid: () => pid,
    abort: () => {
      channel.unpipe(proc.stream)
      proc.stream.unpipe(reader)
      reader.destroy()
      proc.stream.destroy()
    },
  }
}
