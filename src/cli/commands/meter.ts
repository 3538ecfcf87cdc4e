import type { Command } from '../command'
import { printJson, UsageError, say } from '../output'

export const meterCommands: Command[] = [
  {
    path: ['server', 'rate'],
    usage: 'berth server rate NAME RATE_PER_HOUR [--json]',
    summary: "set a server's hourly rate: the meter's cost estimate grows at it while a session runs there",
    group: 'servers',
    args: [
      { name: 'NAME', help: 'the server', complete: 'server' },
      { name: 'RATE_PER_HOUR', help: 'what an hour of a session there costs, in your currency (0 for none)' },
    ],
    positionals: [2, 2],
    async run(p, io) {
      const [name, raw] = p.positionals as [string, string]
      const rate = Number(raw)
      if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(rate)) throw new UsageError(`not an hourly rate: ${raw}`, this.usage)
      const s = await (await io.client()).call('server.setRate', { name, ratePerHour: rate })
      if (io.json) printJson(s)
      else say(`server ${s.name}: ${s.ratePerHour} per hour\n`)
      return 0
    },
  },
]
