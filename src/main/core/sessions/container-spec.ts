// What a session's container looks like on any engine. Labels tie it to the session and to this
// Berth home, so reconciliation never touches another home's containers.
import type Dockerode from 'dockerode'
import type { SessionRow } from '../store/sessions-repo'
import { containerName, LABEL_HOME, LABEL_ROUTE, LABEL_SESSION, volumeName } from '../engines/docker-names'
import { limitsConfig, supervisorEntrypoint, type SessionShape } from './session-shape'
import { KEEPALIVE } from './keepalive'

/** The session's container: its id once known, else its name (Docker takes either). */
export const containerOf = (row: Pick<SessionRow, 'id' | 'containerId'>) => row.containerId ?? containerName(row.id)

/** Where a session finds its secrets: a tmpfs that every start of the container leaves empty. */
export const SECRETS_DIR = '/run/berth/secrets'

export interface SpecInput {
  id: string
  route: string
  image: string
  env: Record<string, string>
  home: string
  mounts?: Dockerode.MountConfig
  extraEnv?: Record<string, string>
  /** mount the secrets tmpfs (an anonymous tmpfs-backed volume: never committed, never checkpointed) */
  secrets?: boolean
  /** the image's own main process and the session's limits (none: keep-alive, no limits) */
  shape?: SessionShape | undefined
}

// A tmpfs-backed volume rather than a plain tmpfs mount: Docker hands it to runc as a bind mount,
// which CRIU treats as external and never dumps, while a --tmpfs mount's content would be archived
// into the checkpoint. `docker commit` never includes mounts.
const secretsMount = (): Dockerode.MountSettings => ({
  Type: 'volume',
  Source: '', // anonymous: removed with the container
  Target: SECRETS_DIR,
  VolumeOptions: { NoCopy: true, Labels: {}, DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs', o: 'size=1m,mode=0700' } } },
})

// a devcontainer's named volumes (names and targets were checked when its file was read)
const volumeMounts = (shape: SessionShape | undefined): Dockerode.MountSettings[] =>
  (shape?.dev?.volumes ?? []).map((v) => ({ Type: 'volume', Source: v.source, Target: v.target }))

export function containerSpec(s: SpecInput): Dockerode.ContainerCreateOptions {
  return {
    name: containerName(s.id),
    Image: s.image,
    Hostname: s.route,
    Entrypoint: s.shape?.main ? supervisorEntrypoint(s.shape.main) : KEEPALIVE,
    Cmd: [],
    Env: Object.entries({ ...s.env, ...s.extraEnv, BERTH_SESSION: s.id, BERTH_ROUTE: s.route }).map(([k, v]) => `${k}=${v}`),
    WorkingDir: '/workspace',
    Labels: { [LABEL_SESSION]: s.id, [LABEL_HOME]: s.home, [LABEL_ROUTE]: s.route },
    HostConfig: {
      Mounts: [{ Type: 'volume', Source: volumeName(s.id), Target: '/workspace' }, ...(s.secrets ? [secretsMount()] : []), ...(s.mounts ?? []), ...volumeMounts(s.shape)],
      // the supervisor restarts the main process by the session's policy; the container itself never
      RestartPolicy: { Name: 'no' },
      ...limitsConfig(s.shape?.limits ?? {}),
    },
  }
}
