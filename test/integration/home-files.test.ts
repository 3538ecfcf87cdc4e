// The files in BERTH_HOME that every session or server depends on (secrets and their key,
// known_hosts, the gateway's host key, the ssh config) survive a crash or a power cut whole: each is
// written to a temporary file, flushed, renamed, and its folder flushed (seen with strace on a real
// daemon). A full disk leaves the old file as it was. Whatever the user's umask, only the user can
// enter the home or read what is in it.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, BIN, ROOT, until } from '../support/berth'
import { testHost } from '../support/testhost'

const h = testHost()

/** Every entry under `dir`, with its permission bits and kind. */
function entries(dir: string): Array<{ path: string; mode: number; kind: 'dir' | 'file' | 'socket' | 'other' }> {
  const out: Array<{ path: string; mode: number; kind: 'dir' | 'file' | 'socket' | 'other' }> = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const st = lstatSync(path)
    const kind = st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSocket() ? 'socket' : 'other'
    out.push({ path, mode: st.mode & 0o777, kind })
    if (kind === 'dir') out.push(...entries(path))
  }
  return out
}

/** `berth ARGS` with umask 000, as a user whose shell profile sets it so. */
function berthWithUmask(berth: BerthHome, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, ...args], { env: berth.env(), stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
    child.stdin.end(input)
  })
}

describe("the home's files", () => {
  const homes: BerthHome[] = []
  const home = (label: string) => {
    const b = new BerthHome(label)
    homes.push(b)
    return b
  }
  afterAll(async () => {
    for (const b of homes) await b.cleanup()
  })

  it('keeps the home 0700 and every file in it 0600 under umask 000, and narrows a home made wider', async () => {
    const berth = home('umask')
    // a home that exists already, open to everyone, with a file another tool left readable
    chmodSync(berth.home, 0o777)
    mkdirSync(join(berth.home, 'logs'), { recursive: true, mode: 0o777 })
    writeFileSync(join(berth.home, 'logs', 'daemon.log'), '', { mode: 0o666 })
    chmodSync(join(berth.home, 'logs', 'daemon.log'), 0o666)
    expect((await berthWithUmask(berth, ['secret', 'set', 'TOKEN'], 'value')).code).toBe(0)
    expect((await berthWithUmask(berth, ['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', h.officeFingerprint])).code).toBe(0)
    expect((await berthWithUmask(berth, ['session', 'create', '--image', h.tinyImage, '--name', 'perm', '--secret', 'TOKEN'])).code).toBe(0)
    expect((await berthWithUmask(berth, ['ssh-config', '--write'])).code).toBe(0)
    const all = entries(berth.home)
    for (const name of ['berth.db', 'secrets.json', 'secrets.key', 'known_hosts', 'logs/daemon.log', 'logs/daemon-stderr.log', 'daemon.pid', 'ssh/config', 'ssh/known_hosts', 'ssh/gateway_host_ed25519_key']) {
      expect(all.some((e) => e.path === join(berth.home, name)), name).toBe(true)
    }
    expect(lstatSync(berth.home).mode & 0o777).toBe(0o700)
    for (const e of all) {
      if (e.kind === 'dir') expect(e.mode, e.path).toBe(0o700)
      else expect(e.mode & 0o077, `${e.path} (${e.kind}) is ${e.mode.toString(8)}`).toBe(0)
    }
  })

  it('flushes each durable file before its rename and its folder after, on a real daemon', async () => {
    const berth = home('fsync')
    const trace = join(berth.home, 'daemon.strace')
    const daemon = spawn(
      'strace',
      ['-f', '-y', '-qq', '-e', 'trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat', '-o', trace, process.execPath, join(ROOT, 'out', 'cli', 'berth.cjs'), 'daemon', '--foreground'],
      { env: berth.env(), stdio: 'ignore' },
    )
    const exited = new Promise((r) => daemon.once('close', r))
    try {
      await until(() => existsSync(join(berth.home, 'control.sock')), 'the traced daemon to listen', 60_000)
      for (const name of ['TOKEN', 'OTHER']) expect((await berth.run(['secret', 'set', name], { input: 'value' })).code).toBe(0)
      await berth.addOffice()
      expect((await berth.run(['ssh-config', '--write'])).code).toBe(0)
      await berth.run(['shutdown'])
      await exited
    } finally {
      daemon.kill('SIGKILL')
    }
    const lines = readFileSync(trace, 'utf8').split('\n')
    const dir = (p: string) => p.slice(0, p.lastIndexOf('/'))
    for (const name of ['secrets.json', 'secrets.key', 'known_hosts', 'ssh/gateway_host_ed25519_key', 'ssh/config', 'ssh/known_hosts']) {
      const target = join(berth.home, name)
      // rename("TMP", "TARGET") or link("TMP", "TARGET"), with TMP next to TARGET
      const at = lines.findIndex((l) => /\b(rename|renameat2?|link|linkat)\(/.test(l) && l.includes(`"${target}"`) && l.includes(`"${target}.tmp-`))
      expect(at, `${name} is put in place by a rename or a link`).toBeGreaterThan(0)
      const tmp = /"([^"]+\.tmp-[^"]+)"/.exec(lines[at]!)![1]!
      const flushedBefore = lines.slice(0, at).some((l) => /\bf(data)?sync\(\d+</.test(l) && l.includes(`<${tmp}>`))
      const folderAfter = lines.slice(at + 1).some((l) => /\bfsync\(\d+</.test(l) && l.includes(`<${dir(target)}>`))
      expect(flushedBefore, `${name}: its temporary file is flushed before the rename`).toBe(true)
      expect(folderAfter, `${name}: its folder is flushed after the rename`).toBe(true)
    }
  })

  it('leaves the secrets file whole and no temporary file behind when the disk fills', () => {
    const berth = home('full')
    // a private mount namespace with a small tmpfs as the home: the daemon runs inside it too
    const script = `
set -e
mount -t tmpfs -o size=4m,mode=0700 tmpfs "$BERTH_HOME"
berth() { "$NODE" "$BIN" "$@"; }
trap 'berth shutdown >/dev/null 2>&1' EXIT
printf first | berth secret set TOKEN >/dev/null
dd if=/dev/zero of="$BERTH_HOME/filler" bs=4k 2>/dev/null || true
before=$(sha256sum < "$BERTH_HOME/secrets.json")
set +e
err=$(head -c 45000 /dev/urandom | base64 -w0 | head -c 60000 | berth secret set BIG 2>&1 >/dev/null)
echo "rc=$?"
set -e
echo "err=$err" | head -1
after=$(sha256sum < "$BERTH_HOME/secrets.json")
[ "$before" = "$after" ] && echo same || echo changed
echo "leftovers=$(ls -A "$BERTH_HOME" | grep -c tmp- || true)"
rm -f "$BERTH_HOME/filler"
berth secret ls --json | tr -d '\n'
echo
`
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script], {
      env: { ...berth.env(), NODE: process.execPath, BIN },
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(r.status, r.stderr).toBe(0)
    const [rc, err, same, leftovers, list] = r.stdout.trim().split('\n')
    expect(rc).not.toBe('rc=0')
    expect(err).toMatch(/ENOSPC|no space left/i)
    expect(same).toBe('same')
    expect(leftovers).toBe('leftovers=0')
    expect(JSON.parse(list!).map((s: { name: string }) => s.name)).toEqual(['TOKEN'])
  })
})
