// What a session's container looks like on any engine. Labels tie it to the session and to this
// Berth home, so reconciliation never touches another home's containers.
import type Dockerode from 'dockerode'

export const containerName = (sessionId: string) => `berth-${sessionId}`
export const volumeName = (sessionId: string) => `berth-${sessionId}-ws`

export const LABEL_SESSION = 'berth.session'
export const LABEL_HOME = 'berth.home'
export const LABEL_ROUTE = 'berth.route'

// PID 1 of a session: sleeps until asked to stop; user work runs in views (tmux) and execs.
export const KEEPALIVE = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"]

export interface SpecInput {
  id: string
  route: string
  image: string
  env: Record<string, string>
  home: string
  mounts?: Dockerode.MountConfig
  extraEnv?: Record<string, string>
}

export function containerSpec(s: SpecInput): Dockerode.ContainerCreateOptions {
  return {
    name: containerName(s.id),
    Image: s.image,
    Hostname: s.route,
    Entrypoint: KEEPALIVE,
    Cmd: [],
    Env: Object.entries({ ...s.env, ...s.extraEnv, BERTH_SESSION: s.id, BERTH_ROUTE: s.route }).map(([k, v]) => `${k}=${v}`),
    WorkingDir: '/workspace',
    Labels: { [LABEL_SESSION]: s.id, [LABEL_HOME]: s.home, [LABEL_ROUTE]: s.route },
    HostConfig: {
      Mounts: [{ Type: 'volume', Source: volumeName(s.id), Target: '/workspace' }, ...(s.mounts ?? [])],
      RestartPolicy: { Name: 'no' },
    },
  }
}
