// Bundles the CLI (and the headless core it hosts as `berth daemon`) for plain Node.
import { build } from 'esbuild'

await build({
  entryPoints: ['src/cli/berth.ts'],
  outfile: 'out/cli/berth.cjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  sourcemap: true,
  // the server's shell files travel inside the bundle as text (engines/server-script/server-script.ts)
  loader: { '.sh': 'text' },
  logLevel: 'warning',
})
