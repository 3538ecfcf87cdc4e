// A move unpacks what arrives as root on the target, straight into the new container's folders.
// Played as an attacker twice: a session whose writable layer holds a device node of the host's
// disk, and a stream crafted by hand fed to the office server's own receive over its real sshd
// (as a compromised source server would send it). Each is refused before anything is written, and
// the host is as it was.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pack, type Header } from 'tar-stream'

type Entry = Partial<Header> & { name: string; body?: string }
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SERVER_SCRIPT } from '../../src/main/core/engines/server-script/server-script'
import { BerthHome, localDocker, officeDocker } from '../support/berth'
import { testHost } from '../support/testhost'

const h = testHost()

async function archive(entries: Entry[]): Promise<Buffer> {
  const p = pack()
  for (const { body, ...header } of entries) p.entry(header as Header, body ?? '')
  p.finalize()
  const chunks: Buffer[] = []
  for await (const c of p) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/** Block and character devices other than whiteouts (0,0) anywhere under DIR. */
function devicesUnder(dir: string): string[] {
  const r = spawnSync('find', [dir, '-xdev', '(', '-type', 'b', '-o', '-type', 'c', ')', '-exec', 'stat', '-c', '%n %F %t,%T', '{}', '+'], { encoding: 'utf8', timeout: 180_000 })
  return r.stdout
    .split('\n')
    .filter((l) => l && !l.endsWith(' 0,0'))
    .sort()
}

describe('a move that carries what a hostile session or server made', () => {
  const berth = new BerthHome('move-hostile')
  beforeAll(async () => {
    await berth.addOffice()
  })
  afterAll(() => berth.cleanup())

  it('refuses a session whose writable layer holds a device node, and keeps it where it was', async () => {
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'devices'])
    // Docker lets a container make device nodes (it only denies using them); on the target host's
    // disk, under Docker's data root, a world-writable node of its disk would be root's to use
    const made = await berth.run(['exec', s.id, '--', 'sh', '-c', 'echo kept > /workspace/w && mkdir -p /opt/dev && mknod /opt/dev/sda b 8 0 && chmod 666 /opt/dev/sda && echo made'])
    expect(made.stdout).toBe('made\n')
    await berth.json(['pause', s.id, '--wait'])
    const officeRoot = `${h.officeDataRoot}/overlay2`
    const before = devicesUnder(officeRoot)

    const moved = await berth.run(['resume', s.id, '--on', 'office'], { timeoutMs: 300_000 })
    expect(moved.code).not.toBe(0)
    expect(moved.stderr).toContain('refused the parts: member "diff/opt/dev/sda" is a device; nothing was unpacked')

    // nothing of it on the office host: no device node appeared, no container runs it there
    expect(devicesUnder(officeRoot)).toEqual(before)
    const there = await officeDocker().listContainers({ filters: { label: [`berth.session=${s.id}`] } })
    expect(there).toEqual([])
    // and the session is still the user's, paused on the laptop, and resumes there whole
    expect(await berth.json(['session', 'show', s.id])).toMatchObject({ server: 'local', state: 'paused' })
    await berth.json(['resume', s.id])
    const back = await berth.run(['exec', s.id, '--', 'sh', '-c', 'cat /workspace/w; ls -l /opt/dev/sda | cut -c1'])
    expect(back.stdout).toBe('kept\nb\n')
    expect((await localDocker().getContainer(`berth-${s.id}`).inspect()).State.Running).toBe(true)
    await berth.json(['finish', s.id])
  })

  describe('a stream crafted by hand, fed to the office server receive', () => {
    // the office server is this machine behind its own sshd: its files are the host's files
    const dir = mkdtempSync('/tmp/berth-hostile-')
    const script = join(dir, 'berth-server.sh')
    const sentinel = join(dir, 'sentinel')
    const hostDir = join(dir, 'host-dir')
    const dest = join(dir, 'layer')
    const etc = `/etc/berth-hostile-${process.pid}`
    let homeId = ''
    let n = 0
    beforeAll(async () => {
      chmodSync(dir, 0o755)
      writeFileSync(script, SERVER_SCRIPT, { mode: 0o644 })
      writeFileSync(sentinel, 'the host file\n', { mode: 0o644 })
      mkdirSync(hostDir, { mode: 0o755 })
      homeId = await berth.homeId()
    })
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    /** Runs the office's receive of BYTES into DEST as Berth would (the office user, the root helper unpacking). */
    const receive = (bytes: Buffer) => {
      n += 1
      const stage = `$HOME/.local/state/berth/${homeId}/xfer/hostile-${process.pid}-${n}`
      const remote = `export DOCKER_HOST=unix://${h.officeSocket} BERTH_HOME_ID=${homeId}; sh ${script} xfer-receive "${stage}" 0 diff ${dest}; rc=$?; rm -rf "${stage}"; exit $rc`
      const [user, hostPort] = h.officeUrl.replace(/^ssh:\/\//, '').split('@') as [string, string]
      const [host, port] = hostPort.split(':') as [string, string]
      const args = ['-i', h.officeIdentity, '-p', port, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${user}@${host}`, remote]
      return spawnSync('ssh', args, { input: bytes, encoding: 'utf8', timeout: 120_000 })
    }
    const hostUnchanged = () => {
      expect(existsSync(dest)).toBe(false)
      expect(readFileSync(sentinel, 'utf8')).toBe('the host file\n')
      expect(statSync(sentinel).nlink).toBe(1)
      expect(readdirSync(hostDir)).toEqual([])
      expect(existsSync(etc)).toBe(false)
      expect(existsSync(join(dir, 'abs'))).toBe(false)
      expect(existsSync(join(dir, 'dotdot'))).toBe(false)
    }
    const ok = { name: 'diff/ok', body: 'harmless\n' }
    const rel = (p: string) => p.slice(1)

    it.each([
      ['a member that matches no part being moved', [ok, { name: rel(etc), body: 'owned\n' }], `member "${rel(etc)}" lies outside the parts being moved`],
      ['an absolute member', [ok, { name: join(dir, 'abs'), body: 'owned\n' }], `member "${join(dir, 'abs')}" has an absolute name`],
      ['a member that climbs out with ..', [ok, { name: `diff/../../../../../..${dir}/dotdot`, body: 'owned\n' }], 'has an empty, . or .. part'],
      ['a hard link to a host file', [ok, { name: 'diff/h', type: 'link', linkname: rel(sentinel) }], `the hard link "diff/h" -> "${rel(sentinel)}" lies outside the parts being moved`],
      ['a hard link to a file the archive never had', [ok, { name: 'diff/h', type: 'link', linkname: 'diff/elsewhere' }], 'points at "diff/elsewhere", no earlier file of the archive'],
      ['a member written through a symbolic link out of the layer', [ok, { name: 'diff/s', type: 'symlink', linkname: hostDir }, { name: 'diff/s/owned', body: 'owned\n' }], 'member "diff/s/owned" goes through the symbolic link diff/s'],
      ['the layer itself as a symbolic link', [{ name: 'diff', type: 'symlink', linkname: hostDir }], 'member "diff" is not a folder'],
      ['a block device', [ok, { name: 'diff/sda', type: 'block-device', devmajor: 8, devminor: 0, mode: 0o666 }], 'member "diff/sda" is a device'],
      ['a character device that is no whiteout', [ok, { name: 'diff/mem', type: 'character-device', devmajor: 1, devminor: 1, mode: 0o666 }], 'member "diff/mem" is a device'],
    ] as Array<[string, Entry[], string]>)('refuses %s and writes nothing', async (_what, entries, why) => {
      const r = receive(await archive(entries))
      expect(r.status).toBe(1)
      expect(r.stdout).toMatch(/^error refused the parts: /)
      expect(r.stdout).toContain(`${why}; nothing was unpacked`)
      hostUnchanged()
    })

    it('refuses a stream cut at a member boundary, and unpacks a well-formed one exactly', async () => {
      const whole = await archive([
        { name: 'diff', type: 'directory' },
        ok,
        { name: 'diff/twin', type: 'link', linkname: 'diff/ok' },
        { name: 'diff/gone', type: 'character-device', devmajor: 0, devminor: 0 },
        { name: 'diff/abs', type: 'symlink', linkname: '/etc/passwd' },
        { name: 'diff/alias', type: 'symlink', linkname: 'diff/ok' },
      ])
      // cut after diff/ok's data: tar alone would read it as a whole archive
      const cut = receive(whole.subarray(0, 3 * 512))
      expect(cut.status).toBe(1)
      expect(cut.stdout).toContain('error the parts did not arrive whole (1536 bytes so far)')
      hostUnchanged()

      const r = receive(whole)
      expect(r.stdout).toBe(`bytes ${whole.length}\n`)
      expect(r.status).toBe(0)
      expect(readFileSync(join(dest, 'ok'), 'utf8')).toBe('harmless\n')
      expect(statSync(join(dest, 'twin')).nlink).toBe(2)
      expect(lstatSync(join(dest, 'gone')).isCharacterDevice()).toBe(true)
      // a link's target is the session's own path, never renamed to the host's folder
      expect(spawnSync('readlink', [join(dest, 'abs')], { encoding: 'utf8' }).stdout).toBe('/etc/passwd\n')
      expect(spawnSync('readlink', [join(dest, 'alias')], { encoding: 'utf8' }).stdout).toBe('diff/ok\n')
      expect(readFileSync(sentinel, 'utf8')).toBe('the host file\n')
      expect(statSync(sentinel).nlink).toBe(1)
    })
  })
})
