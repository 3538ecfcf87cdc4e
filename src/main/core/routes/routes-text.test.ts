import { describe, expect, it } from 'vitest'
import { parseListeningPorts } from './listening-ports'
import { includeLine, renderSshConfig, sshLine } from './ssh-config'
import { checkAuthorizedKeys, parsePublicKey } from './authorized-keys'
import { Settings } from '../../../shared/settings'

describe('listening ports', () => {
  it('are the LISTEN rows of /proc/net/tcp and tcp6', () => {
    const text = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 00000000:0BB9 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2 1 0 100 0 0 10 0
   2: 0100007F:0BB8 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1
  sl  local_address                         remote_address                        st tx_queue rx_queue
   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4 1
   1: 00000000000000000000000000000000:0BB9 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5 1
`
    expect(parseListeningPorts(text)).toEqual([3000, 3001, 8080])
    expect(parseListeningPorts('')).toEqual([])
  })
})

describe('the ssh config', () => {
  it('has a Host block per session that pins the gateway key', () => {
    const text = renderSshConfig({
      host: '127.0.0.1',
      port: 2223,
      hostKeyAlias: 'berth-gateway',
      knownHostsFile: '/home/me/Berth Data/ssh/known_hosts',
      identityFiles: ['/home/me/.ssh/id_ed25519'],
      sessions: [
        { route: 'tidy-wren-10', name: 'b', server: 'office' },
        { route: 'calm-otter-42', name: 'a', server: 'local' },
      ],
    })
    expect(text).toContain(
      [
        '# session a on local',
        'Host calm-otter-42.berth',
        '  HostName 127.0.0.1',
        '  Port 2223',
        '  User calm-otter-42',
        '  HostKeyAlias berth-gateway',
        '  UserKnownHostsFile "/home/me/Berth Data/ssh/known_hosts"',
        '  StrictHostKeyChecking yes',
        '  IdentityFile /home/me/.ssh/id_ed25519',
        '  IdentitiesOnly yes',
      ].join('\n'),
    )
    expect(text.indexOf('calm-otter-42')).toBeLessThan(text.indexOf('tidy-wren-10'))
    expect(includeLine('/x y/config')).toBe('Include "/x y/config"')
    expect(sshLine('calm-otter-42', 2222)).toBe('ssh -p 2222 calm-otter-42@127.0.0.1')
  })
})

describe('authorized keys', () => {
  const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKt4LrSy6tuZxVDnN6W/Y6GdNOKfwBu0IRXAsfZ+u4B6 me@laptop'
  it('parse a key alone (a comment may follow), and nothing else: options in front make a line no key', () => {
    expect(parsePublicKey(key)?.type).toBe('ssh-ed25519')
    expect(parsePublicKey(`  ${key}  `)?.type).toBe('ssh-ed25519')
    expect(parsePublicKey(`no-pty,no-agent-forwarding ${key}`)).toBeUndefined()
    expect(parsePublicKey(`from="10.0.0.1" ${key}`)).toBeUndefined()
    expect(parsePublicKey('# a comment')).toBeUndefined()
    expect(parsePublicKey('ssh-ed25519 bm90IGEga2V5')).toBeUndefined()
  })
  it('are validated when set: options are refused with the reason, keys ssh2 cannot read too', () => {
    expect(Settings.shape.authorizedKeys.safeParse([key]).success).toBe(true)
    expect(Settings.shape.authorizedKeys.safeParse(['hello']).success).toBe(false)
    for (const options of ['restrict', 'command="ls -l"', 'from="10.0.0.1",no-pty']) {
      const r = Settings.shape.authorizedKeys.safeParse([`${options} ${key}`])
      expect(r.success).toBe(false)
      expect(r.error?.issues[0]?.message).toContain('authorized_keys options (from=, command=, restrict, ...) are not supported')
    }
    expect(checkAuthorizedKeys([key])).toBeUndefined()
    expect(checkAuthorizedKeys([key, 'ssh-ed25519 bm90IGEga2V5'])).toContain('authorizedKeys[1] (ssh-ed25519 bm90IGEga2V5...) is not a public key the gateway can read')
  })
})
