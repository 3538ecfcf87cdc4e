import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DOCTOR_CHECKS } from '../../src/shared/doctor'
import { troubleshooting, withTroubleshooting } from '../../scripts/readme-troubleshooting'

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8')

describe('the README', () => {
  it("has the Troubleshooting section berth doctor's checks generate (npx tsx scripts/readme-troubleshooting.ts)", () => {
    expect(withTroubleshooting(readme)).toBe(readme)
    for (const c of Object.values(DOCTOR_CHECKS)) {
      expect(troubleshooting()).toContain(`### ${c.title}`)
      for (const p of Object.values(c.problems)) expect(readme).toContain(p.fix)
    }
  })
})
