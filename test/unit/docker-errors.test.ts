import { describe, expect, it } from 'vitest'
import { isNotFound } from '../../src/main/core/engines/docker-errors'
import { containerOf } from '../../src/main/core/sessions/container-spec'
import { containerName } from '../../src/main/core/engines/docker-names'

describe('reading Docker answers', () => {
  it('takes only a 404 for "not there", whatever else the engine throws', () => {
    expect(isNotFound({ statusCode: 404, message: 'no such container' })).toBe(true)
    expect(isNotFound({ statusCode: 409 })).toBe(false)
    expect(isNotFound(new Error('connect ECONNREFUSED'))).toBe(false)
    expect(isNotFound(null)).toBe(false)
    expect(isNotFound('404')).toBe(false)
  })

  it('names a session container by its id once known, else by its name', () => {
    expect(containerOf({ id: 's1', containerId: 'abc123' })).toBe('abc123')
    expect(containerOf({ id: 's1', containerId: null })).toBe(containerName('s1'))
  })
})
