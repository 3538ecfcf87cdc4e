// `doctor.report`: what Berth found on this machine, for `berth doctor` and the UI's first run.
import { existsSync } from 'node:fs'
import { BerthError } from '../../../shared/errors'
import type { CallName, CallResult, ParsedArgs } from '../../../shared/contract'
import type { DoctorCheck } from '../../../shared/contract/doctor'
import type { CallContext } from '../api'
import type { Core } from '../core'
import { silentOwner } from '../streams/stream-hub'
import { engineCheck, memoryPauseCheck, portChecks, serversCheck, sleepHookCheck, sshConfigCheck } from './doctor-checks'

const ctx: CallContext = { owner: silentOwner('doctor'), door: 'control' }

/** A call to another domain through the contract, as any door would make it. */
async function contract<N extends CallName>(core: Core, name: N, args: ParsedArgs<N>): Promise<CallResult<N>> {
  const r = await core.call(name, args, ctx)
  if ('error' in r) throw new BerthError(r.error.code, r.error.message)
  return r.result as CallResult<N>
}

export function installDoctor(core: Core): void {
  core.use(
    {},
    {
      'doctor.report': async (a) => {
        const settings = core.settings.get()
        const local = core.engines.get('local')
        const routes = contract(core, 'routes.info', {})
        const checks: DoctorCheck[] = await Promise.all([
          engineCheck(core.localEngine, local, a.client),
          // what the memory-pause test of the engine found (it runs now if it never did)
          memoryPauseCheck('local', (server) => core.checkpoints.ability(server, { waitMs: 14_000 })),
          sleepHookCheck(process.platform, existsSync),
          serversCheck(core.servers.list().filter((s) => s.kind === 'ssh').map((s) => ({ name: s.name, engine: () => core.engines.get(s.name) }))),
        ])
        const r = await routes
        checks.splice(2, 0, ...portChecks(r, { gateway: settings.gatewayPort, preview: settings.previewPort }), sshConfigCheck(r.sshConfig.path, r.sshConfig.includeLine))
        return { checks, host: core.options.host, home: core.options.home }
      },
    },
  )
}
