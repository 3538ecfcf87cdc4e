import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(__dirname, '..', '..')
const doc = readFileSync(join(root, 'docs', 'ARCHITECTURE.md'), 'utf8')
const core = join(root, 'src', 'main', 'core')

function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [join(dir, e.name), ...folders(join(dir, e.name))])
}

/** The floors the lint rule keeps (eslint.config.mjs), as the lists it declares. */
function floor(name: 'FOUNDATION' | 'FEATURES'): string[] {
  const config = readFileSync(join(root, 'eslint.config.mjs'), 'utf8')
  const m = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(config)
  if (!m) throw new Error(`eslint.config.mjs declares no ${name}`)
  return [...m[1]!.matchAll(/'([^']+)'/g)].map((x) => x[1]!)
}

describe('docs/ARCHITECTURE.md', () => {
  it('names every folder under src/main/core', () => {
    const missing = folders(core)
      .map((f) => `${relative(core, f).split('\\').join('/')}/`)
      .filter((f) => !doc.includes(`\`${f}\``))
    expect(missing).toEqual([])
  })

  it('draws the floors the lint rule keeps', () => {
    const line = (label: string) => doc.split('\n').find((l) => l.trimStart().startsWith(label)) ?? ''
    for (const f of floor('FOUNDATION')) expect(line('core foundation')).toContain(f)
    for (const f of floor('FEATURES')) expect(line('core features')).toContain(f)
  })

  it('is the README\'s link for the shape of the code', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8')
    expect(readme).toContain('](docs/ARCHITECTURE.md)')
    expect(readme).not.toContain('../shared/design')
  })
})
