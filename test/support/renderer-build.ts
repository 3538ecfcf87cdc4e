// The UI tests need the renderer build (out/renderer), which `npm test` makes first; when a test
// runs alone after a source change, build it here.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './berth'

function newest(dir: string): number {
  let t = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

export function ensureRendererBuilt(): void {
  const index = join(ROOT, 'out', 'renderer', 'index.html')
  const sources = Math.max(newest(join(ROOT, 'src', 'renderer')), newest(join(ROOT, 'src', 'shared')))
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' })
}
