import { describe, expect, it } from 'vitest'
import { freezeAllArgs, parseFreezeAll } from './freeze-all'

const A = 'a'.repeat(64)
const B = 'b'.repeat(64)
const C = 'c'.repeat(64)

describe('freeze-all, the batch freeze of one server', () => {
  it('passes each container as a group: id, init pid, what its pause keeps, the paths to make durable', () => {
    expect(
      freezeAllArgs(
        [
          { facts: [A, '101', '/d/overlay2/x/diff', '/d/volumes/v/_data'], mode: 'memory' },
          { facts: [B, '202', '/d/overlay2/y/diff'], mode: 'frozen' },
          { facts: [], mode: 'memory' },
        ],
        900.4,
      ),
    ).toEqual(['freeze-all', 'limit=900', '--', A, '101', 'memory', '/d/overlay2/x/diff', '/d/volumes/v/_data', '--', B, '202', 'frozen', '/d/overlay2/y/diff'])
  })

  it('reads a frozen container, one that failed with its reason, exec sessions ended, and one never named', () => {
    const out = [`ended ${A} 2`, `frozen ${A}`, `failed ${B} Error response from daemon: Container ${B.slice(0, 12)} is not running`, 'note the exec sessions could not be ended within 0.9 s; freezing anyway', 'ms 420', ''].join('\n')
    const r = parseFreezeAll(out, [A, B, C])
    expect(r.get(A)).toEqual({ frozen: true, execsEnded: 2 })
    expect(r.get(B)).toEqual({ frozen: false, reason: `Error response from daemon: Container ${B.slice(0, 12)} is not running` })
    expect(r.get(C)).toEqual({ frozen: false, reason: 'the server did not say it was frozen' })
  })

  it('trusts no line it does not know: a failed line wins over a frozen one for the same container', () => {
    const r = parseFreezeAll(`frozen ${A}\nfailed ${A}\nfrozen ZZZ\n`, [A])
    expect(r.get(A)).toEqual({ frozen: false, reason: 'docker pause did not pause it' })
  })
})
