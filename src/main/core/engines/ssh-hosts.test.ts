import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveServerAddress, urlOf, userSshConfig } from './ssh-hosts'

const home = mkdtempSync(join(tmpdir(), 'ssh-hosts-'))
const ssh = join(home, '.ssh')
mkdirSync(join(ssh, 'config.d'), { recursive: true })
for (const k of ['office_key', 'bastion_key', 'id_ed25519']) writeFileSync(join(ssh, k), 'key')
writeFileSync(
  join(ssh, 'config'),
  `Include config.d/*
Host office-box
  HostName 10.1.2.3
  User dev
  Port 2200
  IdentityFile ~/.ssh/office_key
  IdentityFile %d/.ssh/missing_key
  ProxyJump bastion
Host loop-a
  ProxyJump loop-b
Host loop-b
  ProxyJump loop-a
Host *
  User fallback
`,
)
writeFileSync(join(ssh, 'config.d', 'bastion'), 'Host bastion\n  HostName bastion.example.com\n  User jumper\n  IdentityFile ~/.ssh/bastion_key\n  ProxyJump gate@gate.example.com:2022\n')
const src = userSshConfig(home, 'ada')
afterAll(() => rmSync(home, { recursive: true, force: true }))

describe('server addresses as ssh takes them', () => {
  it('resolves a Host of ~/.ssh/config: HostName, User, Port, the IdentityFiles that exist, and its ProxyJump chain (Includes followed)', () => {
    const e = resolveServerAddress('office-box', src)
    expect(e).toMatchObject({ host: '10.1.2.3', port: 2200, user: 'dev', alias: 'office-box', identities: [join(ssh, 'office_key')] })
    expect(e.jumps.map((j) => urlOf(j))).toEqual(['ssh://gate@gate.example.com:2022', 'ssh://jumper@bastion.example.com:22'])
    expect(e.jumps[1]!.identities).toEqual([join(ssh, 'bastion_key')])
    expect(urlOf(e)).toBe('ssh://dev@10.1.2.3:2200')
  })

  it('takes a plain name as ssh would (Host * applies, default keys), and ssh:// as it is', () => {
    expect(resolveServerAddress('build@ci.example.com', src)).toMatchObject({ host: 'ci.example.com', user: 'build', port: 22, alias: null, identities: [join(ssh, 'id_ed25519')] })
    expect(resolveServerAddress('ci.example.com', src).user).toBe('fallback')
    expect(resolveServerAddress('ssh://office@127.0.0.2:2222', src)).toMatchObject({ host: '127.0.0.2', port: 2222, user: 'office', jumps: [], identities: [] })
  })

  it('says so when ProxyJump goes round in a circle', () => {
    expect(() => resolveServerAddress('loop-a', src)).toThrow(/ProxyJump in ~\/\.ssh\/config goes round in a circle: loop-a -> loop-b -> loop-a/)
  })
})
