import { describe, expect, it } from 'vitest'
import { parseJobLine } from './server-runner'
import { sh } from './shell-text'

describe('the server job protocol', () => {
  it('parses status lines', () => {
    expect(parseJobLine('stage stopped 1234 memory')).toEqual({ kind: 'stage', stage: 'stopped', ms: 1234, arg: 'memory' })
    expect(parseJobLine('stage durable 1500 ')).toEqual({ kind: 'stage', stage: 'durable', ms: 1500, arg: '' })
    expect(parseJobLine('fallback the checkpoint failed: x')).toEqual({ kind: 'fallback', text: 'the checkpoint failed: x' })
    expect(parseJobLine('result {"mode":"memory","bytes":3}')).toEqual({ kind: 'result', value: { mode: 'memory', bytes: 3 } })
    expect(parseJobLine('result {oops')).toMatchObject({ kind: 'error' })
    expect(parseJobLine('error docker pause failed')).toEqual({ kind: 'error', text: 'docker pause failed' })
    expect(parseJobLine('something else')).toBeUndefined()
  })

  it('keeps shell expansions in shell text', () => {
    expect(sh`echo \${HOME:-/root} \n`).toBe('echo ${HOME:-/root} \\n')
  })
})
