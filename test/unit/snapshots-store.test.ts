// Snapshot names and the snapshots table: versions never reused, pages newest first, pins.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type Db } from '../../src/main/core/store/database'
import { SnapshotsRepo, type SnapshotRow } from '../../src/main/core/store/snapshots-repo'
import { sessionImage, snapshotImage, snapshotVolume } from '../../src/main/core/engines/docker-names'
import { autoName, parseSnapshotId, snapshotId } from '../../src/main/core/snapshots/snapshot-names'
import { forkNames } from '../../src/main/core/snapshots/fork'
import { SnapshotRef, SnapshotName } from '../../src/shared/contract'

const dirs: string[] = []
const dbs: Db[] = []
function repo(): SnapshotsRepo {
  const dir = mkdtempSync(join(tmpdir(), 'berth-snaprepo-'))
  dirs.push(dir)
  const db = openDatabase(dir)
  dbs.push(db)
  return new SnapshotsRepo(db)
}
afterEach(() => {
  for (const d of dbs.splice(0)) d.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function row(r: SnapshotsRepo, name: string, extra: Partial<SnapshotRow> = {}): SnapshotRow {
  const version = r.reserveVersion(name)
  return r.insert({
    id: snapshotId(name, version),
    name,
    version,
    kind: 'disk',
    sessionId: 's1',
    server: 'local',
    imageRef: 'img',
    checkpoint: null,
    volumeRef: 'vol',
    sizeBytes: 1,
    parentSnapshot: null,
    auto: false,
    testRestored: false,
    tags: [],
    detail: {},
    createdAt: new Date().toISOString(),
    reason: 'named',
    state: 'ready',
    ...extra,
  })
}

describe('snapshot names', () => {
  it('are tag-qualified and parse back', () => {
    expect(snapshotId('nightly', 2)).toBe('nightly:v2')
    expect(parseSnapshotId('nightly:v12')).toEqual({ name: 'nightly', version: 12 })
    expect(parseSnapshotId('nightly')).toEqual({ name: 'nightly', version: null })
    expect(SnapshotRef.safeParse('nightly:v3').success).toBe(true)
    expect(SnapshotRef.safeParse('nightly').success).toBe(true)
    expect(SnapshotRef.safeParse('night ly').success).toBe(false)
    expect(SnapshotRef.safeParse('nightly:3').success).toBe(false)
    expect(SnapshotName.safeParse('a'.repeat(65)).success).toBe(false)
  })

  it('make valid Docker names that carry the home, so two homes on one engine never collide', () => {
    const tag = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*:[\w][\w.-]{0,127}$/
    expect(snapshotImage('h1', 'Night.ly_1', 3)).toMatch(tag)
    expect(snapshotImage('h1', 'n', 1)).not.toBe(snapshotImage('h2', 'n', 1))
    expect(sessionImage('h1', 'abc')).toMatch(tag)
    expect(snapshotVolume('h1', 'n', 1)).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/)
    expect(autoName('x'.repeat(70), 'seal').length).toBe(64)
  })

  it('name forks one by one when asked for several', () => {
    expect(forkNames(undefined, 2)).toEqual([undefined, undefined])
    expect(forkNames('fk', 1)).toEqual(['fk'])
    expect(forkNames('fk', 3)).toEqual(['fk-1', 'fk-2', 'fk-3'])
  })
})

describe('the snapshots table', () => {
  it('never reuses a version, even after a delete', () => {
    const r = repo()
    expect(row(r, 'n').id).toBe('n:v1')
    const v2 = row(r, 'n')
    expect(v2.id).toBe('n:v2')
    r.remove(v2.id)
    expect(row(r, 'n').id).toBe('n:v3')
    expect(row(r, 'other').id).toBe('other:v1')
  })

  it('pages newest first and resolves a bare name to its newest ready version', () => {
    const r = repo()
    for (let i = 0; i < 5; i++) row(r, i % 2 ? 'odd' : 'even')
    row(r, 'even', { state: 'creating' })
    const first = r.page({}, 3)
    expect(first.map((s) => s.id)).toEqual(['even:v3', 'odd:v2', 'even:v2'])
    expect(r.page({ beforeSeq: first[2]!.seq }, 10).map((s) => s.id)).toEqual(['odd:v1', 'even:v1'])
    expect(r.page({ name: 'odd' }, 10).map((s) => s.id)).toEqual(['odd:v2', 'odd:v1'])
    expect(r.resolve('even')?.id).toBe('even:v3')
    expect(r.resolve('even:v4')?.state).toBe('creating')
    expect(r.resolve('missing')).toBeUndefined()
  })

  it('keeps pins until what pinned goes', () => {
    const r = repo()
    const s = row(r, 'cap', { auto: true, reason: 'fork' })
    expect(r.isPinned(s.id)).toBe(false)
    r.pin(s.id, 'fork-a', 'fork')
    r.pin(s.id, 'fork-b', 'fork')
    expect(r.pins(s.id).map((p) => p.by)).toEqual(['fork-a', 'fork-b'])
    r.unpinBy('fork-a')
    expect(r.isPinned(s.id)).toBe(true)
    r.unpinBy('fork-b')
    expect(r.isPinned(s.id)).toBe(false)
  })
})
