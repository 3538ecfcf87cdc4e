// A session's /workspace is a clone of the user's repository: DIR's main on a branch session/<id>.
// The repository travels as a git bundle through an exec's stdin, so it works on any server.
import { isAbsolute, resolve } from 'node:path'
import type Dockerode from 'dockerode'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { WorkspaceInfo } from '../../../shared/models'
import { startExec } from '../sessions/exec'
import { git } from './host-git'

/** Checks DIR is a git repository with a main branch and returns where the session starts from. */
export async function readWorkspace(dir: string, sessionId: string): Promise<WorkspaceInfo> {
  const abs = isAbsolute(dir) ? dir : resolve(dir)
  const r = await git(['-C', abs, 'rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}'], { timeoutMs: 60_000, maxStdout: 256 })
  if (r.code !== 0) throw new BerthError('usage', `the workspace ${abs} is not a git repository with a main branch`)
  return { dir: abs, branch: `session/${sessionId}`, base: r.stdout.toString().trim() }
}

export async function cloneIntoSession(docker: Dockerode, containerId: string, ws: WorkspaceInfo): Promise<void> {
  const bundle = await git(['-C', ws.dir, 'bundle', 'create', '-', 'refs/heads/main'], { timeoutMs: 15 * 60_000 })
  if (bundle.code !== 0) throw new BerthError('git', `could not bundle ${ws.dir}: ${oneSentence(bundle.stderr)}`)
  const script = [
    'set -e',
    'command -v git >/dev/null || { echo "the image has no git: a workspace needs git in the session" >&2; exit 3; }',
    'B=$(mktemp /tmp/.berth-ws.XXXXXX)',
    'cat > "$B"',
    'git clone -q --branch main "$B" /workspace',
    'rm -f "$B"',
    'cd /workspace',
    'git remote remove origin',
    `git checkout -q -b '${ws.branch}'`,
  ].join('\n')
  const stderr: Buffer[] = []
  const h = await startExec(docker, containerId, { cmd: ['sh', '-c', script], stdin: true }, (fd, d) => {
    if (fd === 2) stderr.push(d)
  })
  h.write(bundle.stdout)
  h.end()
  const { code } = await h.exit
  if (code !== 0) throw new BerthError('git', `could not clone the workspace into the session: ${oneSentence(Buffer.concat(stderr).toString() || `exit ${code}`)}`)
}
