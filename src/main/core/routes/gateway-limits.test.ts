import { describe, expect, it } from 'vitest'
import { PeerGuard, peerOf } from './gateway-limits'

describe('the per-peer guard of the ssh gateway', () => {
  const limits = { maxUnauthenticatedPerPeer: 2, maxFailuresPerPeer: 3, failureWindowMs: 60_000 }

  it('lets a peer have a few connections authenticating at once, and others are not held by it', () => {
    const logs: string[] = []
    const g = new PeerGuard(limits, (m) => logs.push(m))
    expect(g.admit('10.0.0.1')).toBe(true)
    expect(g.admit('10.0.0.1')).toBe(true)
    expect(g.admit('10.0.0.1')).toBe(false)
    expect(g.admit('10.0.0.2')).toBe(true)
    g.settle('10.0.0.1', false)
    expect(g.admit('10.0.0.1')).toBe(true)
    expect(logs).toEqual(['ssh gateway: refusing new connections from 10.0.0.1 for now: 2 connections still authenticating'])
  })

  it('holds off a peer past its failures for the window, says so once, and forgets them after', () => {
    let now = 1_000_000
    const logs: string[] = []
    const g = new PeerGuard(limits, (m) => logs.push(m), () => now)
    for (let i = 0; i < 3; i++) {
      expect(g.admit('p')).toBe(true)
      g.settle('p', true)
      now += 1000
    }
    expect(g.admit('p')).toBe(false)
    expect(g.admit('p')).toBe(false)
    expect(logs).toEqual(['ssh gateway: refusing new connections from p for now: 3 failed connections in the last 60 s'])
    // a scanner that never asked to authenticate is no failure
    expect(g.admit('q')).toBe(true)
    g.settle('q', false)
    // once the oldest failure is a minute old, one more connection may try
    now += 60_000 - 3000 + 1
    expect(g.admit('p')).toBe(true)
  })

  it('counts ::ffff:127.0.0.1 and 127.0.0.1 as one peer', () => {
    expect(peerOf('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(peerOf('::1')).toBe('::1')
    expect(peerOf(undefined)).toBe('?')
  })
})
