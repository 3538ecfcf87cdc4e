// Secrets: a file under /run/berth/secrets/ in the session, installed fresh on every start, and in
// no artefact Berth makes: committed images, workspace copies, the store's own database and logs.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker } from '../support/berth'
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

  it('stores a secret from stdin in a 0600 file, and lists names only', async () => {
    const set = await berth.run(['secret', 'set', 'API_TOKEN', '--json'], { input: value })
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({ name: 'API_TOKEN', created: true })
    expect(statSync(join(berth.home, 'secrets.json')).mode & 0o777).toBe(0o600)
    const list = await berth.json(['secret', 'ls'])
    expect(list.map((s: { name: string }) => s.name)).toEqual(['API_TOKEN'])
    expect(JSON.stringify(list)).not.toContain(value)
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

  it('forgets a secret; a session that asked for it starts without it', async () => {
    expect(await berth.json(['secret', 'rm', 'API_TOKEN'])).toEqual({ removed: true })
    expect(await berth.json(['secret', 'rm', 'API_TOKEN'])).toEqual({ removed: false })
    await berth.json(['restart', 'vault'])
    const r = await berth.run(['exec', 'vault', '--', 'ls', '-A', '/run/berth/secrets'])
    expect(r.stdout).toBe('')
  })
})
