// bench/remote-api: latency of Docker API round trips to the office engine through Berth's one
// persistent ssh connection, against stock dockerode over ssh (a new connection per call), the
// docker CLI over ssh://, and the local socket, measured side by side in one run.
// Run: npx tsx bench/remote-api.ts [N]
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import Dockerode from 'dockerode'
import { LocalEngine } from '../src/main/core/engines/local-engine'
import { hostKeyOf, KnownHosts } from '../src/main/core/engines/known-hosts'
import { SshEngine } from '../src/main/core/engines/ssh-engine'
import { testHost } from '../test/support/testhost'
import { interleaved, median, table } from './support'

const run = promisify(execFile)

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 50)
  const h = testHost()
  const home = mkdtempSync(join(tmpdir(), 'berth-bench-'))
  const [user, hostPort] = h.officeUrl.replace('ssh://', '').split('@') as [string, string]
  const [host, port] = hostPort.split(':') as [string, string]
  try {
    const kh = new KnownHosts(home)
    const pub = readFileSync(h.officeIdentity.replace(/office_user_ed25519$/, 'office_host_ed25519.pub'), 'utf8').split(' ')[1]!
    kh.add(host, Number(port), hostKeyOf(Buffer.from(pub, 'base64')))
    const berth = new SshEngine('office', h.officeUrl, h.officeIdentity, kh, join(home, 'run'))
    await berth.ready()
    const local = new LocalEngine('local', h.localSocket)
    const stock = new Dockerode({
      protocol: 'ssh',
      host,
      port: Number(port),
      username: user,
      sshOptions: { privateKey: readFileSync(h.officeIdentity) },
    } as Dockerode.DockerOptions)
    // the docker CLI reaches ssh:// through the system ssh client: give it the key in a private HOME
    const cliHome = join(home, 'cli')
    mkdirSync(join(cliHome, '.ssh'), { recursive: true, mode: 0o700 })
    writeFileSync(
      join(cliHome, '.ssh', 'config'),
      `Host ${host}\n  Port ${port}\n  IdentityFile ${h.officeIdentity}\n  UserKnownHostsFile ${join(home, 'known_hosts')}\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n`,
      { mode: 0o600 },
    )
    // ssh reads ~/.ssh/config from the passwd entry, not $HOME: put an ssh that names the config first on PATH
    writeFileSync(join(cliHome, 'ssh'), `#!/bin/sh\nexec /usr/bin/ssh -F ${join(cliHome, '.ssh', 'config')} "$@"\n`, { mode: 0o755 })
    const cliEnv: NodeJS.ProcessEnv = { ...process.env, HOME: cliHome, PATH: `${cliHome}:${process.env.PATH}` }
    delete cliEnv.DOCKER_HOST
    const cli = (args: string[]) => run('docker', ['-H', `ssh://${user}@${host}:${port}`, ...args], { env: cliEnv })

    const ways: Record<string, { ping: () => Promise<unknown>; list: () => Promise<unknown> }> = {
      "Berth's persistent connection": { ping: () => berth.docker.ping(), list: () => berth.docker.listContainers() },
      'stock dockerode over ssh': { ping: () => stock.ping(), list: () => stock.listContainers() },
      'docker CLI over ssh://': { ping: () => cli(['version', '-f', '{{.Server.APIVersion}}']), list: () => cli(['ps', '-q']) },
      'local socket (dockerode)': { ping: () => local.docker.ping(), list: () => local.docker.listContainers() },
    }
    process.stderr.write(`measuring ${n} interleaved rounds of ping, then of list...\n`)
    const pings = await interleaved(n, Object.fromEntries(Object.entries(ways).map(([k, w]) => [k, w.ping])))
    const lists = await interleaved(n, Object.fromEntries(Object.entries(ways).map(([k, w]) => [k, w.list])))
    const results: Record<string, { ping: number; list: number }> = {}
    for (const name of Object.keys(ways)) results[name] = { ping: median(pings[name]!), list: median(lists[name]!) }
    const b = results["Berth's persistent connection"]!
    const rows: Array<Array<string | number>> = [['path', 'ping median ms', 'list median ms', 'ping vs Berth', 'list vs Berth']]
    for (const [name, r] of Object.entries(results)) rows.push([name, r.ping, r.list, `${(r.ping / b.ping).toFixed(2)}x`, `${(r.list / b.list).toFixed(2)}x`])
    const cliR = results['docker CLI over ssh://']!
    const loc = results['local socket (dockerode)']!
    console.log(`\nbench/remote-api: ${n} round trips each to the office engine (${h.officeUrl}), medians\n`)
    console.log(table(rows))
    console.log(`\nBerth vs docker CLI over ssh://: ${(cliR.ping / b.ping).toFixed(1)}x faster (ping), ${(cliR.list / b.list).toFixed(1)}x faster (list)   target: >= 10x`)
    console.log(`Berth vs local socket: ${(b.ping / loc.ping).toFixed(2)}x (ping), ${(b.list / loc.list).toFixed(2)}x (list)   target: <= 3x`)
    console.log('(the CLI "ping" is `docker version`, the cheapest call the CLI offers; it also starts a process per call, which is the point)')
    await berth.close()
    await local.close()
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

void main()
