import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveDockerEngine, type EngineLookup } from './docker-endpoint'

const HOME = '/home/ada'
const meta = (name: string) => join(HOME, '.docker', 'contexts', 'meta', createHash('sha256').update(name).digest('hex'), 'meta.json')
const contextFile = (name: string, host: string) => JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } })

function machine(opts: { env?: NodeJS.ProcessEnv; files?: Record<string, string>; sockets?: string[]; platform?: NodeJS.Platform } = {}): EngineLookup {
  const files = opts.files ?? {}
  return {
    env: opts.env ?? {},
    home: HOME,
    platform: opts.platform ?? 'linux',
    uid: 1000,
    isSocket: (p) => (opts.sockets ?? []).includes(p),
    readFile: (p) => files[p],
  }
}

describe('finding the Docker engine the way the docker CLI does', () => {
  it('takes DOCKER_HOST first, then DOCKER_CONTEXT, then the current context of ~/.docker/config.json', () => {
    const files = {
      [join(HOME, '.docker', 'config.json')]: JSON.stringify({ auths: {}, currentContext: 'colima' }),
      [meta('colima')]: contextFile('colima', `unix://${HOME}/.colima/default/docker.sock`),
      [meta('office')]: contextFile('office', 'unix:///var/run/docker-office.sock'),
    }
    expect(resolveDockerEngine(machine({ env: { DOCKER_HOST: 'unix:///tmp/d.sock', DOCKER_CONTEXT: 'office' }, files }))).toMatchObject({ socket: '/tmp/d.sock', source: 'DOCKER_HOST', problem: null })
    expect(resolveDockerEngine(machine({ env: { DOCKER_CONTEXT: 'office' }, files }))).toMatchObject({ socket: '/var/run/docker-office.sock', source: 'DOCKER_CONTEXT' })
    const current = resolveDockerEngine(machine({ files }))
    expect(current).toMatchObject({ socket: `${HOME}/.colima/default/docker.sock`, source: 'docker context', problem: null })
    expect(current.why).toBe(`the docker context "colima" (currentContext in ~/.docker/config.json): unix://${HOME}/.colima/default/docker.sock`)
  })

  it('reads DOCKER_CONFIG for the config folder, and treats the "default" context as none', () => {
    const dir = '/etc/ada-docker'
    const ctx = join(dir, 'contexts', 'meta', createHash('sha256').update('rootless').digest('hex'), 'meta.json')
    const files = { [join(dir, 'config.json')]: '{"currentContext":"rootless"}', [ctx]: contextFile('rootless', 'unix:///run/user/1000/docker.sock') }
    expect(resolveDockerEngine(machine({ env: { DOCKER_CONFIG: dir }, files })).socket).toBe('/run/user/1000/docker.sock')
    const dflt = resolveDockerEngine(machine({ files: { [join(HOME, '.docker', 'config.json')]: '{"currentContext":"default"}' }, sockets: ['/var/run/docker.sock'] }))
    expect(dflt).toMatchObject({ socket: '/var/run/docker.sock', source: 'well-known' })
  })

  it('falls back to the first well-known socket that exists: Docker Desktop, OrbStack, Colima, rootless, Podman', () => {
    const pick = (sockets: string[], platform: NodeJS.Platform = 'linux') => resolveDockerEngine(machine({ sockets, platform, env: { XDG_RUNTIME_DIR: '/run/user/1000' } }))
    expect(pick([`${HOME}/.docker/run/docker.sock`]).why).toMatch(/^Docker Desktop's socket/)
    expect(pick([`${HOME}/.orbstack/run/docker.sock`, `${HOME}/.colima/default/docker.sock`]).why).toMatch(/^OrbStack's socket/)
    expect(pick([`${HOME}/.colima/default/docker.sock`]).socket).toBe(`${HOME}/.colima/default/docker.sock`)
    expect(pick(['/run/user/1000/docker.sock']).why).toMatch(/^rootless Docker's socket/)
    expect(pick(['/run/user/1000/podman/podman.sock']).why).toMatch(/^Podman's Docker-compatible socket/)
    expect(pick([`${HOME}/.local/share/containers/podman/machine/podman.sock`], 'darwin').why).toMatch(/^Podman machine's socket/)
    const none = pick([])
    expect(none).toMatchObject({ socket: '/var/run/docker.sock', source: 'default', problem: null })
    expect(none.lookedAt).toEqual(expect.arrayContaining(['/var/run/docker.sock', '~/.docker/run/docker.sock', '~/.orbstack/run/docker.sock']))
  })

  it('says in one sentence why a configured engine cannot be used', () => {
    const config = join(HOME, '.docker', 'config.json')
    const missing = resolveDockerEngine(machine({ files: { [config]: '{"currentContext":"gone"}' } }))
    expect(missing.socket).toBeNull()
    expect(missing.problem).toBe(`the docker context "gone" (currentContext in ~/.docker/config.json) does not exist: there is no ~/.docker/contexts/meta/${createHash('sha256').update('gone').digest('hex')}/meta.json; see docker context ls`)
    const badJson = resolveDockerEngine(machine({ files: { [config]: '{"currentContext":' } }))
    expect(badJson.problem).toMatch(/^~\/\.docker\/config\.json is not valid JSON \(.+\); fix it, or set DOCKER_HOST$/)
    const tcp = resolveDockerEngine(machine({ env: { DOCKER_CONTEXT: 'remote' }, files: { [meta('remote')]: contextFile('remote', 'tcp://10.0.0.5:2376') } }))
    expect(tcp.problem).toContain('Berth reaches this machine\'s engine only on a unix socket, not tcp://')
    const ssh = resolveDockerEngine(machine({ env: { DOCKER_HOST: 'ssh://me@build-box' } }))
    expect(ssh.problem).toContain('berth server add NAME ssh://me@build-box')
    for (const c of [missing, badJson, tcp, ssh]) expect(c.problem).not.toContain('\n')
  })
})
