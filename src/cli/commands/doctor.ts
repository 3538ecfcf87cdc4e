// `berth doctor`: what the running Berth found on this machine, check by check, with what to do.
import type { DoctorCheck } from '../../shared/contract/doctor'
import { resolveDockerEngine } from '../../main/core/engines/docker-endpoint'
import type { Command } from '../command'
import { printJson } from '../output'

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const

export function printChecks(checks: DoctorCheck[]): void {
  const width = Math.max(...checks.map((c) => c.title.length))
  for (const c of checks) {
    process.stdout.write(`${MARK[c.status]}  ${c.title.padEnd(width)}  ${c.summary}\n`)
    if (c.fix) process.stdout.write(`${' '.repeat(width + 8)}fix: ${c.fix}\n`)
  }
}

export const doctorCommand: Command = {
  path: ['doctor'],
  usage: 'berth doctor [--json]',
  summary: 'check this machine: which Docker engine and why, pause with memory, gateway and preview ports, ssh by name, the sleep hook, the servers',
  group: 'berth',
  positionals: [0, 0],
  async run(_p, io) {
    // the engine this shell would pick, to tell when the running core (an app started elsewhere) sees another
    const mine = resolveDockerEngine()
    let report
    try {
      report = await (await io.client()).call('doctor.report', { client: { socket: mine.socket, why: mine.why } })
    } catch (e) {
      const message = (e as Error).message
      if (io.json) printJson({ error: { code: 'internal', message }, engine: mine })
      else {
        process.stdout.write(`Berth's core could not start: ${message}\n`)
        process.stdout.write(`engine this shell would use: ${mine.problem ?? `${mine.socket} (${mine.why})`}\n`)
      }
      return 1
    }
    if (io.json) printJson(report)
    else {
      process.stdout.write(`Berth (${report.host}) for ${report.home}\n\n`)
      printChecks(report.checks)
    }
    return report.checks.some((c) => c.status === 'fail') ? 1 : 0
  },
}
