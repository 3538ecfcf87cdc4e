import { ServePort } from '../../shared/contract'
import { str, type Command } from '../command'
import { printJson, UsageError, say, warn } from '../output'

const USAGE = 'berth serve [--port P] [--json]'
/** a fixed default, so a bookmarked address keeps its port; --port 0 picks a free one */
export const DEFAULT_SERVE_PORT = 8023

export const serveCommand: Command = {
  path: ['serve'],
  usage: USAGE,
  summary: 'serve the UI to a browser on 127.0.0.1 behind a random token (until Ctrl-C)',
  group: 'berth',
  options: { port: { type: 'string', short: 'p', value: 'P', help: `the port on 127.0.0.1 (default ${8023}; 0 picks a free one)` } },
  positionals: [0, 0],
  async run(p, io) {
    const raw = str(p, 'port')
    const port = raw === undefined ? DEFAULT_SERVE_PORT : /^\d+$/.test(raw) ? Number(raw) : NaN
    if (!ServePort.safeParse(port).success) throw new UsageError(`not a port: ${raw} (0 to 65535; 0 picks a free one)`, USAGE)
    const c = await io.client()
    const opened = await c.call('serve.open', { port })
    // the URL alone on stdout, so a script can read it; the rest on stderr
    if (io.json) printJson(opened)
    else say(`${opened.url}\n`)
    warn('berth: serving the UI on 127.0.0.1 only; the address above is its key. Ctrl-C stops.\n')
    let stopping = false
    const code = await new Promise<number>((resolve) => {
      c.onClose(() => {
        if (stopping) return
        warn('berth: the Berth daemon stopped, so the UI is no longer served\n')
        resolve(1)
      })
      c.on('stream.exit', (e) => {
        if (e.streamId === opened.streamId) resolve(0)
      })
      const stop = () => {
        stopping = true
        void c.call('stream.close', { streamId: opened.streamId }).finally(() => resolve(0))
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    return code
  },
}
