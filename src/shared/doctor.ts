// What `berth doctor` checks, and what to do about each thing it can find: one catalogue, read by
// the core's checks (their fix sentences), the UI's first-run panel (titles) and the README's
// Troubleshooting section (scripts/readme-troubleshooting.ts writes it, a test keeps it in sync).

export interface DoctorProblem {
  /** what doctor says it found (the README's heading for it) */
  says: string
  status: 'warn' | 'fail'
  fix: string
}

export interface DoctorCheckInfo {
  title: string
  /** what the check looks at, in a sentence or two */
  checks: string
  problems: Record<string, DoctorProblem>
}

export const DOCTOR_CHECKS = {
  engine: {
    title: 'Docker engine',
    checks:
      "Which Docker engine is this machine's own (the `local` server) and why: `DOCKER_HOST`, else `DOCKER_CONTEXT`, else the docker CLI's current context (`~/.docker/config.json`), else the first well-known socket that exists (the system's `/var/run/docker.sock`, Docker Desktop, OrbStack, Colima, Rancher Desktop, rootless Docker, Podman, Lima); then whether it answers.",
    problems: {
      unanswered: {
        says: 'no Docker engine answers on the socket',
        status: 'fail',
        fix: 'Start your engine (Docker, Docker Desktop, OrbStack, Colima, Podman...), or point Berth at a running one: `docker context use NAME`, or `DOCKER_HOST=unix:///path/to/docker.sock`; then `berth shutdown` so the next verb starts a core that sees it.',
      },
      denied: {
        says: 'permission denied on the socket',
        status: 'fail',
        fix: 'Let your user reach the socket: `sudo usermod -aG docker $USER` and log in again (or use rootless Docker, Docker Desktop or Podman, whose sockets are yours).',
      },
      context: {
        says: 'the docker context cannot be used',
        status: 'fail',
        fix: "Berth reads the docker CLI's own settings: `docker context ls` shows the contexts, `docker context use default` (or one whose endpoint is a unix socket) picks another; a remote engine is connected with `berth server add`.",
      },
      differs: {
        says: "Berth's core uses another engine than this shell would",
        status: 'warn',
        fix: "The running core was started with another environment (an app started from the Dock or a launcher does not see your shell's `DOCKER_HOST`): make the choice in `~/.docker/config.json` with `docker context use NAME`, which every process reads, or `berth shutdown` and run a verb from this shell.",
      },
    },
  },
  'memory-pause': {
    title: 'Pause with memory',
    checks: "Whether this machine's engine can pause a session with its memory (a CRIU checkpoint), and by which method; otherwise pauses freeze the session (its memory stays on this machine) or keep only its files.",
    problems: {
      unavailable: {
        says: 'sessions cannot pause with their memory here',
        status: 'warn',
        fix: 'Memory pauses need Docker in experimental mode with CRIU installed (Linux; Docker Desktop cannot): add `"experimental": true` to `/etc/docker/daemon.json`, install `criu`, restart Docker. Until then a pause freezes the session or keeps its files, and says which.',
      },
      slow: {
        says: "memory pauses use Docker's slower checkpoint path",
        status: 'warn',
        fix: "Install containerd's client `ctr` next to Docker (Debian and Ubuntu: the `containerd` package) and let Berth start its root helper, so checkpoints go to disk directly.",
      },
      unknown: {
        says: 'the engine did not say whether it can pause with memory',
        status: 'warn',
        fix: 'See the Docker engine check above; `berth server test local` asks again.',
      },
    },
  },
  gateway: {
    title: 'ssh gateway',
    checks: "Whether Berth's ssh gateway (loopback only) listens, and on which port: every session's ssh line goes through it.",
    problems: {
      'not-listening': {
        says: 'the ssh gateway does not listen',
        status: 'fail',
        fix: 'Another program may hold every port Berth tried: choose a free one with `berth settings set gatewayPort PORT`; the daemon log says why it could not listen.',
      },
      moved: {
        says: 'the ssh gateway listens on another port than its setting',
        status: 'warn',
        fix: 'Its port was taken, so Berth took the next free one: ssh lines and `berth ssh-config` already use it. To keep a fixed port, free it or choose another with `berth settings set gatewayPort PORT`.',
      },
    },
  },
  previews: {
    title: 'Previews',
    checks: 'Whether the preview proxy listens (http://ROUTE-PORT.localhost:PORT/ reaches a web server inside a session).',
    problems: {
      'not-listening': {
        says: 'the preview proxy does not listen',
        status: 'fail',
        fix: 'Choose a free port with `berth settings set previewPort PORT`; the daemon log says why it could not listen.',
      },
      moved: {
        says: 'the preview proxy listens on another port than its setting',
        status: 'warn',
        fix: 'Its port was taken, so Berth took the next free one (`berth session show` prints the addresses). Free it or choose another with `berth settings set previewPort PORT`.',
      },
    },
  },
  'ssh-config': {
    title: 'ssh by name',
    checks: 'Whether `~/.ssh/config` includes the file Berth keeps (one `Host ROUTE.berth` per session), at its top, so `ssh ROUTE.berth`, scp, git and editors reach sessions by name.',
    problems: {
      'no-include': {
        says: '~/.ssh/config does not include the file Berth keeps',
        status: 'warn',
        fix: 'Run `berth ssh-config --write` and put the `Include` line it prints at the top of `~/.ssh/config` (Berth never edits that file).',
      },
      'include-late': {
        says: 'the Include line comes after a Host or Match block',
        status: 'warn',
        fix: 'ssh reads an `Include` inside the block above it only: move the line to the top of `~/.ssh/config`.',
      },
    },
  },
  'sleep-hook': {
    title: 'Sleep hook',
    checks: 'Whether the hook that pauses sessions before the machine sleeps is installed (Linux: systemd system-sleep; macOS: sleepwatcher), and whether the berth it runs still exists.',
    problems: {
      missing: {
        says: 'no sleep hook is installed',
        status: 'warn',
        fix: 'Run `sudo berth power install-hook` (macOS: `berth power install-hook`, with sleepwatcher). While the desktop app runs it pauses sessions at sleep itself; the hook covers the headless daemon too.',
      },
      stale: {
        says: 'the sleep hook runs a berth that is gone',
        status: 'fail',
        fix: 'Berth moved or was reinstalled: run `sudo berth power install-hook` again.',
      },
    },
  },
  servers: {
    title: 'Connected servers',
    checks: 'Whether each connected server answers over ssh and Docker within a few seconds.',
    problems: {
      unreachable: {
        says: 'a connected server does not answer',
        status: 'warn',
        fix: "Check the network path (VPN, the server's sshd and Docker): `berth server test NAME` says what failed. Its sessions stay where they are until it answers.",
      },
    },
  },
} as const satisfies Record<string, DoctorCheckInfo>

export type DoctorCheckId = keyof typeof DOCTOR_CHECKS
export const DOCTOR_CHECK_IDS = Object.keys(DOCTOR_CHECKS) as DoctorCheckId[]
export type DoctorProblemKey<Id extends DoctorCheckId> = keyof (typeof DOCTOR_CHECKS)[Id]['problems'] & string
