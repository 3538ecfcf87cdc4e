// A session's /workspace is a clone of the user's repository: DIR's main on a branch session/<id>.
// The repository travels as a git bundle through an exec's stdin, so it works on any server.
import { spawn } from 'node:child_process'
import { isAbsolute, resolve } from 'node:path'
import type Dockerode from 'dockerode'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { WorkspaceInfo } from '../../../shared/models'
import { startExec } from '../sessions/exec'

export function git(args: string[], cwd?: string, input?: Buffer): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((res) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e) => res({ code: 127, stdout: Buffer.alloc(0), stderr: e.message }))
    child.on('close', (code) => res({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }))
    child.stdin.end(input)
  })
}

/** Checks DIR is a git repository with a main branch and returns where the session starts from. */
export async function readWorkspace(dir: string, sessionId: string): Promise<WorkspaceInfo> {
  const abs = isAbsolute(dir) ? dir : resolve(dir)
  const r = await git(['-C', abs, 'rev-parse', '--verify', '--quiet', 'refs/heads/main^{commit}'])
  if (r.code !== 0) throw new BerthError('usage', `the workspace ${abs} is not a git repository with a main branch`)
  return { dir: abs, branch: `session/${sessionId}`, base: r.stdout.toString().trim() }
}

export async function cloneIntoSession(docker: Dockerode, containerId: string, ws: WorkspaceInfo): Promise<void> {
  const bundle = await git(['-C', ws.dir, 'bundle', 'create', '-', 'main'])
  if (bundle.code !== 0) throw new BerthError('internal', `could not bundle ${ws.dir}: ${oneSentence(bundle.stderr)}`)
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
  if (code !== 0) throw new BerthError('internal', `could not clone the workspace into the session: ${oneSentence(Buffer.concat(stderr).toString() || `exit ${code}`)}`)
}
