import { exitCodeFor } from '../../shared/errors'
import { bool, type Command } from '../command'
import { printJson, say, UsageError, warn } from '../output'

export const execCommand: Command = {
  path: ['exec'],
  usage: 'berth exec [-i] [-t] [--detach] ID -- CMD [ARGS...]',
  summary: 'run a command in a session; streams its output and exits with its code (--detach: a job that outlives pauses)',
  group: 'sessions',
  options: {
    interactive: { type: 'boolean', short: 'i', help: "pass this terminal's input to the command" },
    tty: { type: 'boolean', short: 't', help: 'give the command a terminal (when this one is)' },
    detach: {
      type: 'boolean',
      short: 'd',
      help: 'run it as a job inside the session and print its id: it survives pauses, resumes and moves (berth jobs, logs, kill)',
    },
  },
  args: [
    { name: 'ID', help: 'the session: its id, name or route', complete: 'session' },
    { name: '-- CMD [ARGS...]', help: 'the command to run, after --' },
  ],
  positionals: [1, 1],
  rest: true,
  async run(p, io) {
    const c = await io.client()
    if (bool(p, 'detach')) {
      if (bool(p, 'interactive') || bool(p, 'tty')) throw new UsageError('a detached job takes no input and no terminal: leave out -i and -t', this.usage)
      const job = await c.call('job.start', { id: p.positionals[0]!, cmd: p.rest })
      if (io.json) printJson(job)
      else say(`${job.id}\n`)
      return 0
    }
    const stdin = bool(p, 'interactive')
    const tty = bool(p, 'tty') && process.stdout.isTTY === true
    let streamId: string | undefined
    const early: Array<() => void> = []
    let finish: (code: number) => void = () => undefined
    const done = new Promise<number>((r) => (finish = r))
    c.on('stream.data', (d) => {
      const deliver = () => {
        const out = d.fd === 2 ? process.stderr : process.stdout
        const buf = Buffer.from(d.data, 'base64')
        out.write(buf, () => void c.call('stream.ack', { streamId: d.streamId, bytes: buf.length }).catch(() => undefined))
      }
      if (streamId === undefined) early.push(deliver)
      else deliver()
    })
    c.on('stream.exit', (e) => {
      const report = () => {
        if (e.error) warn(`berth: ${e.error}\n`)
        const code = e.exitCode ?? (e.errorCode ? exitCodeFor(e.errorCode) : 1)
        // wait for stdout to drain so the exit code never races the output
        process.stdout.write('', () => finish(code))
      }
      if (streamId === undefined) early.push(report)
      else report()
    })
    const cols = process.stdout.columns
    const rows = process.stdout.rows
    const opened = await c.call('exec.open', { id: p.positionals[0]!, cmd: p.rest, tty, stdin, cols, rows })
    streamId = opened.streamId
    for (const f of early.splice(0)) f()
    if (stdin) {
      if (tty && process.stdin.isTTY) process.stdin.setRawMode(true)
      process.stdin.on('data', (d: Buffer) => void c.call('stream.write', { streamId: opened.streamId, data: d.toString('base64') }).catch(() => undefined))
      process.stdin.on('end', () => void c.call('stream.write', { streamId: opened.streamId, eof: true }).catch(() => undefined))
    }
    if (tty) process.stdout.on('resize', () => void c.call('stream.resize', { streamId: opened.streamId, cols: process.stdout.columns, rows: process.stdout.rows }).catch(() => undefined))
    process.on('SIGINT', () => {
      void c.call('stream.close', { streamId: opened.streamId }).finally(() => finish(130))
    })
    const code = await done
    if (tty && process.stdin.isTTY) process.stdin.setRawMode(false)
    return code
  },
}
