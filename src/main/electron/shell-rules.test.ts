import { describe, expect, it } from 'vitest'
import type { Session } from '../../shared/models'
import { isAllowedExternal } from './external-links'
import { describePauseAll } from './pause-all'
import { trayMenuTemplate } from './tray-menu'
import { describeTransition } from './transitions'

describe('the desktop shell rules', () => {
  it('opens only allow-listed addresses in the user browser', () => {
    expect(isAllowedExternal('http://calm-otter-42-3000-abcdefghijklmnopqrstuvwx23.localhost:8022/')).toBe(true)
    expect(isAllowedExternal('https://docs.docker.com/engine/')).toBe(true)
    expect(isAllowedExternal('https://evil.example/')).toBe(false)
    expect(isAllowedExternal('http://docs.docker.com/')).toBe(false)
    expect(isAllowedExternal('file:///etc/passwd')).toBe(false)
    expect(isAllowedExternal('javascript:alert(1)')).toBe(false)
    expect(isAllowedExternal('https://user:pw@github.com/')).toBe(false)
    expect(isAllowedExternal('not a url')).toBe(false)
  })

  it('notifies background pause, resume and move endings and failures', () => {
    expect(describeTransition('web', 'pausing', 'paused', null)?.title).toBe('web paused')
    expect(describeTransition('web', 'resuming', 'running', null)?.title).toBe('web resumed')
    expect(describeTransition('web', 'moving', 'paused', null)?.title).toBe('web moved')
    expect(describeTransition('web', 'pausing', 'failed', 'criu failed')).toEqual({ title: 'web failed', body: 'criu failed' })
    expect(describeTransition('web', 'creating', 'running', null)).toBeUndefined()
    expect(describeTransition('web', undefined, 'paused', null)).toBeUndefined()
  })

  it('lists running sessions with their cost in the tray', () => {
    const s = { name: 'web', server: 'office', meter: { cost: 0.5, ratePerHour: 0.25 } } as Session
    const menu = trayMenuTemplate([s, { ...s, name: 'api', meter: { ...s.meter!, cost: 0.25 } }], { open() {}, pauseAll() {}, quit() {} })
    expect(menu.map((m) => m.label ?? m.type)).toEqual(['2 running · $0.75 so far · $0.50/h', 'web — office — $0.50', 'api — office — $0.25', 'separator', 'Pause all and wait', 'Open Berth', 'separator', 'Quit Berth'])
    const empty = trayMenuTemplate([], { open() {}, pauseAll() {}, quit() {} })
    expect(empty[0]!.label).toBe('No session is running')
    expect(empty.find((m) => m.label === 'Pause all and wait')!.enabled).toBe(false)
  })

  it('says what "Pause all and wait" did for each session', () => {
    expect(describePauseAll({ results: [], ms: 1, deadlineMs: 4500, frozenMs: null, durableMs: null })).toEqual({ ok: true, message: 'No session was running.' })
    const ok = { id: 'a', name: 'web', server: 'local', result: { paused: true as const, mode: 'memory' as const, durable: true, snapshot: 's', ms: 900 } }
    expect(describePauseAll({ results: [ok], ms: 900, deadlineMs: 4500, frozenMs: 200, durableMs: 900 })).toEqual({ ok: true, message: '1 session(s) paused and safe on disk (memory).' })
    const bad = { id: 'b', name: 'api', server: 'office', error: { code: 'unreachable' as const, message: 'server office is unreachable' } }
    expect(describePauseAll({ results: [ok, bad], ms: 900, deadlineMs: 4500, frozenMs: 200, durableMs: null })).toEqual({
      ok: false,
      message: '1 session(s) paused and safe on disk (memory); 1 failed: api: server office is unreachable.',
    })
    const late = { id: 'c', name: 'db', server: 'local', result: { paused: true as const, mode: 'frozen' as const, durable: false, snapshot: 's', ms: 4500, pending: 'memory' as const } }
    expect(describePauseAll({ results: [ok, late], ms: 4500, deadlineMs: 4500, frozenMs: 200, durableMs: null })).toEqual({
      ok: false,
      message: '1 session(s) paused and safe on disk (memory); 1 frozen with files safe, memory written later (db).',
    })
  })
})
