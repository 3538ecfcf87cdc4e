import { describe, expect, it } from 'vitest'
import type { Server } from '../../../shared/models'
import { FakeClient, flush, localServer as local } from '../test/fake-client'
import { createServersStore } from './servers'

describe('the servers store', () => {
  it('adds a server only with the fingerprint the user confirmed', async () => {
    const office: Server = { ...local, name: 'office', kind: 'ssh', url: 'ssh://office@10.0.0.2:22', hostKeyFingerprint: 'SHA256:abc' }
    const client = new FakeClient()
      .handle('server.list', () => [local])
      .handle('server.probe', (a) => ({ url: a.url, keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc', known: false }))
      .handle('server.add', () => ({ ...office, hostKeyTrust: 'its host key SHA256:abc is the one you confirmed' }))
      .handle('server.test', (a) => ({ name: a.name, version: '20.10', apiVersion: '1.41', rttMs: 1.2, checkpoint: true, os: 'Debian', kernel: '6.1', memoryPause: { available: true, how: 'fast' as const, note: 'memory pauses work', probedAt: '2025-01-01T00:00:00Z', dumpMiBps: 300 } }))
    const store = createServersStore(client)
    await store.getState().load()
    const draft = { name: 'office', url: 'ssh://office@10.0.0.2:22', identity: '' }
    const probe = await store.getState().probe(draft)
    expect(probe.fingerprint).toBe('SHA256:abc')
    expect(client.callsOf('server.add')).toEqual([])
    await store.getState().add(draft, probe.fingerprint)
    expect(client.callsOf('server.add')).toEqual([{ name: 'office', url: draft.url, identity: undefined, acceptHostKey: 'SHA256:abc' }])
    expect(store.getState().list.map((s) => s.name)).toEqual(['local', 'office'])
    await flush()
    expect(store.getState().health.office?.test?.rttMs).toBe(1.2)
  })

  it('keeps a failed test as the server health and follows server.changed', async () => {
    const client = new FakeClient().handle('server.list', () => [local]).fail('server.test', 'unreachable', 'server office is unreachable: connect ECONNREFUSED')
    const store = createServersStore(client)
    await store.getState().load()
    await store.getState().test('office')
    expect(store.getState().health.office).toMatchObject({ testing: false, error: { code: 'unreachable' } })
    client.emit('server.changed', { ...local, state: 'disconnected' })
    expect(store.getState().list[0]!.state).toBe('disconnected')
  })
})
