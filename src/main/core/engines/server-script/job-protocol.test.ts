import { describe, expect, it } from 'vitest'
import { emptyOutcome, jobResult, MAX_LINE, mergeOutcomes, parseFields, parseJobLine, pauseJobResult, ResumeJobResult, takeLine } from './job-protocol'

describe('the line protocol between the server script and the core', () => {
  it('parses every kind of status line', () => {
    expect(parseJobLine('stage stopped 1234 memory')).toEqual({ kind: 'stage', stage: 'stopped', ms: 1234, arg: 'memory' })
    expect(parseJobLine('stage durable 1500 ')).toEqual({ kind: 'stage', stage: 'durable', ms: 1500, arg: '' })
    expect(parseJobLine('fallback the checkpoint failed: x')).toEqual({ kind: 'fallback', text: 'the checkpoint failed: x' })
    expect(parseJobLine('note ended 1 exec session(s)')).toEqual({ kind: 'note', text: 'ended 1 exec session(s)' })
    expect(parseJobLine('metric dump 812 268435456')).toEqual({ kind: 'metric', name: 'dump', values: [812, 268435456] })
    expect(parseJobLine('result {"mode":"memory","bytes":3}')).toEqual({ kind: 'result', value: { mode: 'memory', bytes: 3 } })
    expect(parseJobLine('error docker pause failed')).toEqual({ kind: 'error', text: 'docker pause failed' })
    expect(parseJobLine('rc 0')).toEqual({ kind: 'rc', rc: 0, gone: undefined })
    expect(parseJobLine('rc lost')).toEqual({ kind: 'rc', rc: null, gone: 'lost' })
    expect(parseJobLine('rc missing')).toEqual({ kind: 'rc', rc: null, gone: 'missing' })
    expect(parseJobLine('written 104857600')).toEqual({ kind: 'written', bytes: 104857600 })
  })

  it('takes a dump\'s bytes written so far only as a plain count, and keeps none of them in the outcome', () => {
    for (const bad of ['written', 'written -5', 'written 1e9', 'written 12 MiB', 'written 0x10', `written ${'9'.repeat(16)}`]) expect(parseJobLine(bad)).toBeUndefined()
    const o = emptyOutcome()
    for (let i = 1; i <= 500; i++) expect(takeLine(o, parseJobLine(`written ${i * 1000}`)!)).toBe(false)
    // counted (following again skips them) but not collected: a long dump's samples do not pile up
    expect(o.lines).toBe(500)
    expect(o.metrics).toEqual([])
  })

  it('turns what it cannot read into an error or nothing, never into a crash', () => {
    expect(parseJobLine('result {oops')).toMatchObject({ kind: 'error' })
    expect(parseJobLine('result [1,2]')).toMatchObject({ kind: 'error' })
    expect(parseJobLine('metric dump fast')).toBeUndefined()
    expect(parseJobLine('rc soon')).toBeUndefined()
    expect(parseJobLine('something else')).toBeUndefined()
    const long = parseJobLine(`note ${'x'.repeat(MAX_LINE * 2)}`)
    expect(long?.kind === 'note' && long.text.length).toBeLessThan(MAX_LINE)
  })

  it('folds the lines of a job, across a reconnect, into its outcome', () => {
    const a = emptyOutcome()
    for (const l of ['stage begin 10', 'stage frozen 180', 'note thawed an exec', 'metric dump 800 1000']) expect(takeLine(a, parseJobLine(l)!)).toBe(false)
    expect(a.lines).toBe(4)
    const b = emptyOutcome(a.lines)
    takeLine(b, parseJobLine('stage durable 1200')!)
    takeLine(b, parseJobLine('result {"mode":"memory","checkpoint":"pause-1","layout":"split","bytes":1000}')!)
    expect(takeLine(b, parseJobLine('rc 0')!)).toBe(true)
    b.followed = true
    const o = mergeOutcomes(a, b)
    expect(o).toMatchObject({ followed: true, rc: 0, lines: 6, notes: ['thawed an exec'], stages: { begin: 10, frozen: 180, durable: 1200 } })
    expect(o.metrics).toEqual([{ name: 'dump', values: [800, 1000] }])
    expect(pauseJobResult(o)).toEqual({ value: { mode: 'memory', checkpoint: 'pause-1', layout: 'split', bytes: 1000, fallback: undefined, image: undefined } })
  })

  it('decides the mode of a pause from the server result alone, and refuses one it does not know', () => {
    const o = emptyOutcome()
    o.result = { mode: 'frozen', pending: 'memory', bytes: 0, fallback: 'did not fit' }
    expect(pauseJobResult(o)).toMatchObject({ value: { mode: 'frozen', pending: 'memory', fallback: 'did not fit' } })
    o.result = { mode: 'disk', image: '', fallback: '' }
    expect(pauseJobResult(o)).toMatchObject({ value: { mode: 'disk', image: undefined, fallback: undefined } })
    o.result = { mode: 'hibernated' }
    expect(pauseJobResult(o)).toMatchObject({ error: expect.stringContaining('does not understand') })
    o.result = { mode: 'none', already: true }
    expect(jobResult(ResumeJobResult, o)).toEqual({ value: { mode: 'none', already: true } })
  })

  it('reads the key value lines of attached commands', () => {
    const f = parseFields('layout split\npath /a\npath /b\nbytes 12\n\nbroken\n')
    expect(f.get('path')).toEqual(['/a', '/b'])
    expect(f.get('bytes')).toEqual(['12'])
    expect(f.has('broken')).toBe(false)
  })
})
