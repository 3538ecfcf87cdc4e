import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { migrations } from '../store/migrations'
import type { Db } from '../store/database'
import { parsePreviewHost, previewUrl, requestAllowed, type PreviewAddress } from './preview-access'
import { newPreviewSecret, PreviewSecrets, SECRET_LENGTH } from './preview-secrets'

const KEY = 'abcdefghijklmnopqrstuvwx23'
const self: PreviewAddress = { route: 'calm-otter-42', port: 3000, secret: KEY }
const HOST = `calm-otter-42-3000-${KEY}.localhost:8022`
const ask = (headers: Record<string, string>, method = 'GET') => requestAllowed({ method, headers: { host: HOST, ...headers } }, self, 8022)
const navigation = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-user': '?1' }

describe('preview addresses', () => {
  it('name a route, a port and the key under .localhost, and nothing else', () => {
    const url = previewUrl('calm-otter-42', 3000, KEY, 8022)
    expect(url).toBe(`http://calm-otter-42-3000-${KEY}.localhost:8022/`)
    // a DNS label holds 63 characters at most, the longest route and port included
    expect(`steady-walrus-99-65535-${KEY}`.length).toBeLessThanOrEqual(63)
    expect(parsePreviewHost(HOST)).toEqual(self)
    expect(parsePreviewHost(`Calm-Otter-42-80-${KEY.toUpperCase()}.LOCALHOST`)).toEqual({ ...self, port: 80 })
    expect(parsePreviewHost(HOST, 8022)).toEqual(self)
    for (const bad of [
      undefined,
      '',
      'localhost:8022',
      'evil.com',
      'calm-otter-42-3000.localhost:8022',
      `calm-otter-42-3000-${KEY}.localhost.evil.com`,
      `calm-otter-42-0-${KEY}.localhost`,
      `calm-otter-42-70000-${KEY}.localhost`,
      `calm-otter-42-3000-${KEY.slice(1)}.localhost`,
      `calm-otter-42-3000-${KEY}1.localhost`,
      `x.calm-otter-42-3000-${KEY}.localhost`,
    ])
      expect(parsePreviewHost(bad), String(bad)).toBeUndefined()
    expect(parsePreviewHost(HOST, 9000)).toBeUndefined()
  })
})

describe('who may use a preview address', () => {
  it("lets in the preview's own pages, the user's navigations and clients that are not browsers", () => {
    expect(ask({})).toBe(true) // curl
    expect(ask({ 'sec-fetch-site': 'none', ...navigation })).toBe(true) // the address bar
    expect(ask({ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', origin: `http://${HOST}` }, 'POST')).toBe(true)
    expect(ask({ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' })).toBe(true)
    expect(ask({ 'sec-fetch-site': 'cross-site', ...navigation })).toBe(true) // a link clicked in Berth's UI
    // another port of the same session
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: `http://calm-otter-42-5173-${KEY}.localhost:8022` })).toBe(true)
    expect(ask({ origin: `http://${HOST}`, upgrade: 'websocket' })).toBe(true)
  })

  it('refuses every other request from another site, WebSockets and form posts included', () => {
    const other = 'http://127.0.0.1:9999'
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: other })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'cross-site', ...navigation, origin: other }, 'POST')).toBe(false) // a form post
    expect(ask({ 'sec-fetch-site': 'cross-site', ...navigation }, 'POST')).toBe(false)
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe', 'sec-fetch-user': '?1' })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' })).toBe(false) // no user
    expect(ask({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'websocket', origin: other, upgrade: 'websocket' })).toBe(false)
    expect(ask({ origin: other, upgrade: 'websocket' })).toBe(false) // a browser without Fetch Metadata
    expect(ask({ origin: 'null' })).toBe(false)
    // another session's preview, or this one's address with another key
    expect(ask({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', origin: `http://brave-heron-11-3000-${KEY}.localhost:8022` })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', origin: `http://calm-otter-42-3000-${newPreviewSecret()}.localhost:8022` })).toBe(false)
    expect(ask({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', origin: `http://calm-otter-42-3000-${KEY}.localhost:8023` })).toBe(false)
  })
})

describe('preview keys', () => {
  const db = () => {
    const d = new Database(':memory:') as unknown as Db
    for (const m of migrations) d.exec(m.sql)
    return d
  }

  it('are made once per session from crypto randomness and checked against the route', () => {
    const d = db()
    const secrets = new PreviewSecrets(d)
    const a = secrets.of({ id: 'sessiona', route: 'calm-otter-42' })
    expect(a).toMatch(new RegExp(`^[a-z2-7]{${SECRET_LENGTH}}$`))
    expect(secrets.of({ id: 'sessiona', route: 'calm-otter-42' })).toBe(a)
    // a new Berth on the same store gives the same key
    expect(new PreviewSecrets(d).of({ id: 'sessiona', route: 'calm-otter-42' })).toBe(a)
    const b = secrets.of({ id: 'sessionb', route: 'brave-heron-11' })
    expect(b).not.toBe(a)
    expect(secrets.verify('calm-otter-42', a)).toBe('sessiona')
    expect(secrets.verify('calm-otter-42', b)).toBeUndefined()
    expect(secrets.verify('brave-heron-11', b)).toBe('sessionb')
    expect(secrets.verify('nosuch-route-10', a)).toBeUndefined()
    expect(secrets.verify('calm-otter-42', '')).toBeUndefined()
    expect(new Set(Array.from({ length: 1000 }, newPreviewSecret)).size).toBe(1000)
  })
})
