// Shell files that run on a server are bundled as text: a vite/rollup plugin for electron-vite and
// vitest (esbuild's CLI build uses its own 'text' loader, see build-cli.mjs).
export function shellText() {
  return {
    name: 'berth-shell-text',
    enforce: 'pre',
    async load(id) {
      if (!id.endsWith('.sh')) return null
      const { readFile } = await import('node:fs/promises')
      return `export default ${JSON.stringify(await readFile(id, 'utf8'))}`
    },
  }
}
