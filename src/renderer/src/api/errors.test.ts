import { describe, expect, it } from 'vitest'
import { CallError } from './client'
import { describeError } from './errors'

describe('errors as the user reads them', () => {
  it('is one sentence with the action that fixes it', () => {
    expect(describeError(new CallError('unreachable', 'server office is unreachable: connect ECONNREFUSED 10.0.0.2:22'))).toEqual({
      code: 'unreachable',
      message: 'Server office is unreachable: connect ECONNREFUSED 10.0.0.2:22.',
      action: { label: 'Check the server', route: '#/servers' },
    })
    expect(describeError(new CallError('conflict', 'cannot finish session a: it is pausing')).action).toEqual({ label: 'Try again', retry: true })
    expect(describeError(new CallError('not_found', 'session not found: x')).action?.route).toBe('#/sessions')
    expect(describeError(new CallError('usage', 'a server name is lowercase letters')).action).toBeUndefined()
    expect(describeError(new Error('boom')).message).toBe('Boom.')
  })
})
