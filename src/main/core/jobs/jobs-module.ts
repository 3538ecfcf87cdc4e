// Plugs detached jobs into the core: `berth exec --detach`, `jobs`, `logs`, `kill`.
import type { Core } from '../core'
import { JobsService } from './jobs-service'

export function installJobs(core: Core): JobsService {
  const jobs = new JobsService(core.sessions, core.engines)
  core.use(
    {},
    {
      'job.start': (a) => jobs.start(a.id, a.cmd, a.env),
      'job.list': (a) => jobs.list(a.id),
      'job.logs': (a) => jobs.logs(a.id, a.job, a.cursor, a.since),
      'job.kill': (a) => jobs.kill(a.id, a.job, a.signal),
    },
  )
  return jobs
}
