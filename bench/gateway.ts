// bench/gateway: the ssh gateway against `docker exec` on the same container, side by side in one
// run (interleaved rounds): throughput of `head -c 1G /dev/zero` to /dev/null, and the round trip
// of `true`. Targets: throughput at least 0.7x of docker exec; round trip at most 1.5x.
// Run: npx tsx bench/gateway.ts [throughput rounds, default 3] [MiB per run, default 1024] [round trips, default 20]
import { spawn } from 'node:child_process'
import { openSync, closeSync } from 'node:fs'
import { BerthHome } from '../test/support/berth'
import { SshUser } from '../test/support/ssh-user'
import { testHost } from '../test/support/testhost'
import { interleaved, median, table } from './support'

function runTo(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const devnull = openSync('/dev/null', 'w')
    const child = spawn(cmd, args, { env, stdio: ['ignore', devnull, 'pipe'] })
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.on('close', (code) => {
      closeSync(devnull)
      if (code === 0) resolve()
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.trim()}`))
    })
  })
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3)
  const mib = Number(process.argv[3] ?? 1024)
  const trips = Number(process.argv[4] ?? 20)
  const berth = new BerthHome('bench-gateway')
  const user = new SshUser('bench')
  try {
    const { port } = await user.startDaemon(berth)
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage])
    const container: string = s.containerId
    const env = { ...process.env, ...user.env() }
    const ssh = (command: string) => runTo('ssh', [...user.options(), '-p', String(port), `${s.route}@127.0.0.1`, command], env)
    const docker = (command: string[]) => runTo('docker', ['exec', container, ...command], env)
    await ssh('true') // records the host key

    process.stderr.write(`throughput: ${rounds} interleaved rounds of ${mib} MiB each way...\n`)
    const bulk = await interleaved(
      rounds,
      {
        'ssh route (gateway)': () => ssh(`head -c ${mib}M /dev/zero`),
        'docker exec': () => docker(['head', '-c', `${mib}M`, '/dev/zero']),
      },
      1,
    )
    process.stderr.write(`round trip: ${trips} interleaved rounds of \`true\`...\n`)
    const rtt = await interleaved(trips, {
      'ssh route (gateway)': () => ssh('true'),
      'docker exec': () => docker(['true']),
    })

    const rate = (ms: number) => mib / (ms / 1000)
    const g = { bulk: median(bulk['ssh route (gateway)']!), rtt: median(rtt['ssh route (gateway)']!) }
    const d = { bulk: median(bulk['docker exec']!), rtt: median(rtt['docker exec']!) }
    console.log(`\nbench/gateway: session ${s.route} on the local engine, medians (${rounds} x ${mib} MiB, ${trips} round trips)\n`)
    console.log(
      table([
        ['path', 'MiB/s', 'seconds per run', 'round trip ms'],
        ['ssh route (gateway)', rate(g.bulk), g.bulk / 1000, g.rtt],
        ['docker exec', rate(d.bulk), d.bulk / 1000, d.rtt],
      ]),
    )
    console.log(`\nthroughput, gateway vs docker exec: ${(rate(g.bulk) / rate(d.bulk)).toFixed(2)}x   target: >= 0.7x`)
    console.log(`round trip, gateway vs docker exec: ${(g.rtt / d.rtt).toFixed(2)}x   target: <= 1.5x`)
    console.log('(the gateway runs: ssh handshake and public-key auth, a Docker exec through the API, the output over ssh; `docker exec` is the docker CLI)')
  } finally {
    await berth.cleanup()
    user.cleanup()
  }
}

main().catch((e: Error) => {
  console.error(e.message)
  process.exitCode = 1
})
