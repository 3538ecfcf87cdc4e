// Secrets: a file under /run/berth/secrets/ in the session, for the session's user only, installed
// fresh on every start, and in no artefact Berth makes: committed images, workspace copies, the
// store's own database and logs. A memory checkpoint holds a secret only if a process kept it in
// its memory (the README's security model says so; a test here shows it).
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, until } from '../support/berth'
import { testHost } from '../support/testhost'

const h = testHost()

/** Does `needle` occur anywhere in the bytes a command prints? (streamed through grep -c) */
function occursIn(cmd: string, needle: string): boolean {
  const r = spawnSync('sh', ['-c', `${cmd} | grep -a -c -F -e "$NEEDLE"`], { env: { ...process.env, NEEDLE: needle }, encoding: 'utf8', maxBuffer: 1 << 20 })
  return Number(r.stdout.trim() || '0') > 0
}

function filesUnder(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...filesUnder(p))
    else if (e.isFile()) out.push(p)
  }
  return out
}

describe('secrets', () => {
  const berth = new BerthHome('secret')
  const value = `berth-secret-${randomBytes(16).toString('hex')}`
  afterAll(() => berth.cleanup())

  it('stores a secret from stdin sealed in a 0600 file under a 0600 key, and lists names only', async () => {
    const set = await berth.run(['secret', 'set', 'API_TOKEN', '--json'], { input: value })
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({ name: 'API_TOKEN', created: true })
    expect(statSync(join(berth.home, 'secrets.json')).mode & 0o777).toBe(0o600)
    expect(statSync(join(berth.home, 'secrets.key')).mode & 0o777).toBe(0o600)
    const list = await berth.json(['secret', 'ls'])
    expect(list.map((s: { name: string }) => s.name)).toEqual(['API_TOKEN'])
    expect(JSON.stringify(list)).not.toContain(value)
    // where they are and what guards them: a headless daemon has no keychain, and says so
    const info = await berth.json(['secret', 'info'])
    expect(info).toMatchObject({ file: join(berth.home, 'secrets.json'), keyFile: join(berth.home, 'secrets.key'), sealed: 'aes-256-gcm', keychain: null })
    const human = await berth.run(['secret', 'ls'])
    expect(human.stdout).toContain(`stored in ${join(berth.home, 'secrets.json')}, each value sealed`)
    expect(human.stdout).toContain('no copy of the key in an OS keychain')
    const empty = await berth.run(['secret', 'set', 'EMPTY'], { input: '' })
    expect(empty.code).toBe(2)
    const bad = await berth.run(['secret', 'set', 'no spaces'], { input: 'x' })
    expect(bad.code).toBe(2)
  })

  it('puts it in the session as /run/berth/secrets/NAME on a tmpfs, fresh on every start, and in no artefact', async () => {
    const unknown = await berth.run(['session', 'create', '--image', h.baseImage, '--secret', 'NOPE'])
    expect(unknown.code).toBe(3)
    expect(unknown.stderr).toContain('secret not found: NOPE')

    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'vault', '--secret', 'API_TOKEN'])
    expect(s.secrets).toEqual(['API_TOKEN'])
    const read = await berth.run(['exec', 'vault', '--', 'sh', '-c', 'cat /run/berth/secrets/API_TOKEN; echo; stat -c "%a %U" /run/berth/secrets/API_TOKEN; df -P /run/berth/secrets | tail -1 | cut -d" " -f1'])
    expect(read.stdout).toBe(`${value}\n400 root\ntmpfs\n`)

    // work that would end up in artefacts, next to the secret
    await berth.run(['exec', 'vault', '--', 'sh', '-c', 'echo work > /workspace/w; echo disk > /root/d; echo tamper > /run/berth/secrets/API_TOKEN.copy'])
    const snap = await berth.json(['snapshot', 'create', 'vault', '--name', 'vault-snap'])

    // a restart installs it again (the tmpfs starts empty), without what was written there by hand
    await berth.json(['restart', 'vault'])
    const after = await berth.run(['exec', 'vault', '--', 'sh', '-c', 'ls /run/berth/secrets; cat /run/berth/secrets/API_TOKEN; echo; cat /workspace/w /root/d'])
    expect(after.stdout).toBe(`API_TOKEN\n${value}\nwork\ndisk\n`)

    // a session made from the snapshot gets it too (it asked for it), installed fresh
    const copy = await berth.json(['session', 'create', '--from', snap.id, '--name', 'vault-copy'])
    expect(copy.secrets).toEqual(['API_TOKEN'])
    expect((await berth.run(['exec', 'vault-copy', '--', 'cat', '/run/berth/secrets/API_TOKEN'])).stdout).toBe(value)

    // every artefact: the snapshot's committed image, the session's committed image (restart),
    // the snapshot's copy of /workspace, the engine's view of the containers, Berth's own files
    const homeId = await berth.homeId()
    const images = (await localDocker().listImages({ filters: { label: [`berth.home=${homeId}`] } })).flatMap((i) => i.RepoTags ?? [])
    expect(images.length).toBeGreaterThanOrEqual(2)
    for (const ref of images) expect(occursIn(`docker save ${ref}`, value), `docker save ${ref}`).toBe(false)
    const vols = (await localDocker().listVolumes({ filters: { label: [`berth.holder=${homeId}`] } })).Volumes ?? []
    expect(vols.length).toBeGreaterThanOrEqual(1)
    for (const v of vols) {
      expect(occursIn(`docker run --rm -v ${v.Name}:/v:ro ${h.tinyImage} sh -c 'find /v -type f -exec cat {} +'`, value), v.Name).toBe(false)
    }
    for (const id of [s.id, copy.id]) {
      expect(occursIn(`docker inspect berth-${id}`, value)).toBe(false)
      expect(occursIn(`docker diff berth-${id}`, 'API_TOKEN')).toBe(false)
    }
    const own = filesUnder(berth.home).filter((f) => !f.endsWith('secrets.json'))
    for (const f of own) expect(readFileSync(f).includes(value), f).toBe(false)
    expect(execFileSync('sh', ['-c', `cat ${join(berth.home, 'secrets.json')}`]).includes(value)).toBe(false) // stored as base64
  })

  it('is in no memory checkpoint (a pause, a memory snapshot) of processes that did not keep it, nor in what a move carries, and comes back after each', async () => {
    await berth.addOffice()
    const s = await berth.json(['session', 'show', 'vault'])
    expect((await berth.json(['pause', 'vault', '--wait'])).mode).toBe('memory')
    const mem = await berth.json(['snapshot', 'create', 'vault', '--name', 'vault-mem'])
    expect(mem.kind).toBe('memory+disk')
    // the pause's checkpoint in the session's container (its pages too), and the snapshot's copy
    const local = (await localDocker().info()).DockerRootDir as string
    const dirs = [`${local}/containers/${s.containerId}`]
    const holders = await localDocker().listContainers({ all: true, filters: { label: [`berth.snapshot=${mem.id}`] } })
    expect(holders.length).toBe(1)
    dirs.push(`${local}/containers/${holders[0]!.Id}/checkpoints`)
    for (const d of dirs) {
      expect(execFileSync('sh', ['-c', `find ${d} -type f | wc -l`]).toString().trim()).not.toBe('0')
      expect(occursIn(`find ${d} -type f -exec cat {} +`, value), d).toBe(false)
    }
    // a move carries the checkpoint, the writable layer and the workspace: none has it; it is
    // installed again on the other side
    const moved = await berth.json(['resume', 'vault', '--on', 'office'])
    expect(moved.memory).toBe(true)
    expect((await berth.run(['exec', 'vault', '--', 'cat', '/run/berth/secrets/API_TOKEN'])).stdout).toBe(value)
    const office = h.officeDataRoot
    const there = await berth.json(['session', 'show', 'vault'])
    expect(occursIn(`find ${office}/containers/${there.containerId} -type f -exec cat {} +`, value)).toBe(false)
    expect(occursIn(`docker -H unix://${h.officeSocket} diff ${there.containerId}`, 'API_TOKEN')).toBe(false)
    await berth.json(['pause', 'vault', '--wait'])
    await berth.json(['resume', 'vault'])
    expect((await berth.run(['exec', 'vault', '--', 'cat', '/run/berth/secrets/API_TOKEN'])).stdout).toBe(value)
  })

  it('is readable by the session\'s own user when its image runs as one, and by no other user in it', async () => {
    // an image whose USER is a name, as most published images have: resolved through its /etc/passwd
    const docker = localDocker()
    const tag = `berth-secrets-user-${randomBytes(4).toString('hex')}`
    const maker = await docker.createContainer({ Image: h.baseImage, Cmd: ['sh', '-c', 'useradd -u 1234 -m app && useradd -u 4321 other'] })
    try {
      await maker.start()
      expect((await maker.wait()).StatusCode).toBe(0)
      await maker.commit({ repo: tag, tag: 't', changes: 'USER app' })
    } finally {
      await maker.remove({ force: true })
    }
    try {
      const s = await berth.json(['session', 'create', '--image', `${tag}:t`, '--name', 'vault-user', '--secret', 'API_TOKEN'])
      const read = await berth.run(['exec', 'vault-user', '--', 'sh', '-c', 'id -un; cat /run/berth/secrets/API_TOKEN; echo; stat -c "%a %U" /run/berth/secrets /run/berth/secrets/API_TOKEN'])
      expect(read).toMatchObject({ code: 0, stdout: `app\n${value}\n500 app\n400 app\n` })
      // another user in the same session cannot list or read them
      const c = docker.getContainer(s.containerId)
      for (const cmd of [['ls', '/run/berth/secrets'], ['cat', '/run/berth/secrets/API_TOKEN']]) {
        const ex = await c.exec({ Cmd: cmd, User: 'other', AttachStdout: true, AttachStderr: true })
        const out = await new Promise<string>((resolve) => {
          void ex.start({}).then((stream) => {
            let text = ''
            stream.on('data', (d: Buffer) => (text += d.toString()))
            stream.on('end', () => resolve(text))
          })
        })
        expect(out).toContain('Permission denied')
        expect(out).not.toContain(value)
      }
      // installed again for the same user after a restart
      await berth.json(['restart', 'vault-user'])
      expect((await berth.run(['exec', 'vault-user', '--', 'cat', '/run/berth/secrets/API_TOKEN'])).stdout).toBe(value)
      await berth.json(['finish', 'vault-user'])
    } finally {
      await docker.getImage(`${tag}:t`).remove({ force: true }).catch(() => undefined)
    }
  })

  it('is in a memory checkpoint once a process keeps it in memory, as the README says', async () => {
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'vault-held', '--secret', 'API_TOKEN'])
    // a shell in the background that read the secret into a variable and waits: its memory holds it
    const keeper = 'v=$(cat /run/berth/secrets/API_TOKEN); while sleep 60; do :; done'
    const started = await berth.run(['exec', 'vault-held', '--', 'sh', '-c', 'setsid -f bash -c "$0" </dev/null >/dev/null 2>&1', keeper])
    expect(started.code).toBe(0)
    await until(async () => (await berth.run(['exec', 'vault-held', '--', 'pgrep', '-f', 'while sleep'])).code === 0, 'the keeper to run')
    expect((await berth.json(['pause', 'vault-held', '--wait'])).mode).toBe('memory')
    const local = (await localDocker().info()).DockerRootDir as string
    expect(occursIn(`find ${local}/containers/${s.containerId} -type f -exec cat {} +`, value)).toBe(true)
    await berth.json(['finish', 'vault-held'])
  })

  it('forgets a secret; a session that asked for it starts without it', async () => {
    expect(await berth.json(['secret', 'rm', 'API_TOKEN'])).toEqual({ removed: true })
    expect(await berth.json(['secret', 'rm', 'API_TOKEN'])).toEqual({ removed: false })
    await berth.json(['restart', 'vault'])
    const r = await berth.run(['exec', 'vault', '--', 'ls', '-A', '/run/berth/secrets'])
    expect(r.stdout).toBe('')
  })
})
