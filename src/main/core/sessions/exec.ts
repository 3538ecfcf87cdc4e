// Runs a command in a session's container through the Docker API (works the same over the ssh
// forward), demultiplexing stdout/stderr when there is no tty.
import type Dockerode from 'dockerode'
import type { Duplex } from 'node:stream'
import { openExec } from '../engines/exec-gate'
import type { StreamSource } from '../streams/stream-hub'

export interface ExecOptions {
  cmd: string[]
  tty?: boolean | undefined
  stdin?: boolean | undefined
  env?: Record<string, string> | undefined
  cols?: number | undefined
  rows?: number | undefined
  user?: string | undefined
  workingDir?: string | undefined
}

export interface ExecExit {
  code: number | null
  dropped: boolean
}

/** A stream hub source (input, resize, flow control) that also tells how the command ended. */
export interface ExecHandle extends StreamSource {
  /**
   * Resolves once the output is drained: the command's exit code, or dropped=true when the
   * connection went away while the command still ran.
   */
  exit: Promise<ExecExit>
}

export async function startExec(
  docker: Dockerode,
  containerId: string,
  opts: ExecOptions,
  onData: (fd: 1 | 2, chunk: Buffer) => void,
): Promise<ExecHandle> {
  const { exec, stream } = await openExec(
    docker,
    containerId,
    {
      Cmd: opts.cmd,
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: !!opts.stdin,
      Tty: !!opts.tty,
      Env: opts.env ? Object.entries(opts.env).map(([k, v]) => `${k}=${v}`) : undefined,
      User: opts.user,
      WorkingDir: opts.workingDir,
    },
    { hijack: true, stdin: !!opts.stdin, Tty: !!opts.tty },
  )
  if (opts.tty && opts.cols && opts.rows) await exec.resize({ w: opts.cols, h: opts.rows }).catch(() => undefined)
  if (opts.tty) stream.on('data', (d: Buffer) => onData(1, d))
  else demux(stream, onData)
  const exit = new Promise<ExecExit>((resolve) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      exec
        .inspect()
        .then((i) => resolve({ code: typeof i.ExitCode === 'number' && !i.Running ? i.ExitCode : null, dropped: i.Running }))
        .catch(() => resolve({ code: null, dropped: true }))
    }
    stream.on('end', finish)
    stream.on('close', finish)
    stream.on('error', finish)
  })
  return {
    write: (d) => stream.write(d),
    end: () => {
      // half-close: the command sees EOF on stdin and keeps writing its output
      const s = stream as Duplex & { end(): void }
      s.end()
    },
    resize: (cols, rows) => void exec.resize({ w: cols, h: rows }).catch(() => undefined),
    close: () => stream.destroy(),
    pause: () => stream.pause(),
    resume: () => stream.resume(),
    exit,
  }
}

/** Docker's multiplexed stream: 8-byte headers [fd, 0, 0, 0, size(u32 BE)] then the payload. */
export function demux(stream: NodeJS.ReadableStream, onData: (fd: 1 | 2, chunk: Buffer) => void): void {
  let buf: Buffer = Buffer.alloc(0)
  stream.on('data', (d: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, d]) : d
    while (buf.length >= 8) {
      const size = buf.readUInt32BE(4)
      if (buf.length < 8 + size) break
      const fd = buf[0] === 2 ? 2 : 1
      if (size > 0) onData(fd, buf.subarray(8, 8 + size))
      buf = buf.subarray(8 + size)
    }
  })
}
