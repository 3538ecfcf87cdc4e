// The one contract every door carries: calls (args -> result) and events. Handlers and clients are
// typed from these maps, so a renamed field breaks the build instead of the user.
import { z } from 'zod'
import { EventRecord, Progress, Server, Session, Snapshot } from './models'
import { Settings } from './settings'
import type { CallSpec } from './contract/define'
import { daemonCalls } from './contract/daemon'
import { doctorCalls } from './contract/doctor'
import { jobCalls } from './contract/jobs'
import { MeterSampled, meterCalls } from './contract/meter'
import { pauseCalls } from './contract/pause'
import { powerCalls } from './contract/power'
import { replicaCalls } from './contract/replicas'
import { routeCalls } from './contract/routes'
import { serverCalls } from './contract/servers'
import { secretCalls } from './contract/secrets'
import { sessionCalls } from './contract/sessions'
import { settingsCalls } from './contract/settings'
import { snapshotCalls } from './contract/snapshots'
import { StreamData, StreamExit, streamCalls } from './contract/streams'
import { viewCalls } from './contract/views'
import { serveCalls } from './contract/serve'
import { workspaceCalls } from './contract/workspace'

export const calls = {
  ...daemonCalls,
  ...serverCalls,
  ...sessionCalls,
  ...streamCalls,
  ...settingsCalls,
  ...pauseCalls,
  ...powerCalls,
  ...meterCalls,
  ...routeCalls,
  ...viewCalls,
  ...serveCalls,
  ...snapshotCalls,
  ...workspaceCalls,
  ...secretCalls,
  ...doctorCalls,
  ...jobCalls,
  ...replicaCalls,
} as const satisfies Record<string, CallSpec>

export type Calls = typeof calls
export type CallName = keyof Calls
export type CallArgs<N extends CallName> = z.input<Calls[N]['args']>
export type ParsedArgs<N extends CallName> = z.output<Calls[N]['args']>
export type CallResult<N extends CallName> = z.output<Calls[N]['result']>

export const events = {
  'session.changed': Session,
  'server.changed': Server,
  'snapshot.changed': Snapshot,
  'event.appended': EventRecord,
  'meter.sampled': MeterSampled,
  progress: Progress,
  'settings.changed': Settings,
  'stream.data': StreamData,
  'stream.exit': StreamExit,
} as const satisfies Record<string, z.ZodType>

export type Events = typeof events
export type EventName = keyof Events
export type EventPayload<N extends EventName> = z.output<Events[N]>

export const isCallName = (name: string): name is CallName => Object.prototype.hasOwnProperty.call(calls, name)
export const isEventName = (name: string): name is EventName => Object.prototype.hasOwnProperty.call(events, name)

export * from './contract/define'
export { ServerAddress, ServerName, SshUrl } from './contract/servers'
export { SessionName, EnvName } from './contract/sessions'
export { StreamId } from './contract/streams'
export { PauseResult, PauseAllResult, ResumeResult } from './contract/pause'
export { PowerDoctor, PowerEvent, PowerEventResult } from './contract/power'
export { View, ViewName, ViewOpened } from './contract/views'
export { ServeOpened, ServePort } from './contract/serve'
export { DoctorCheck } from './contract/doctor'
export { Job, JobId, JobLogs, JobSignal, LogCursor } from './contract/jobs'
