// electron-vite builds three bundles: the main process (the shell hosting the core), the
// sandboxed preload (CommonJS, as a sandboxed preload must be) and the renderer (React), which
// `berth serve` also hands to a browser.
import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'
import { shellText } from './scripts/shell-text.mjs'

export default defineConfig({
  main: {
    plugins: [shellText()],
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // a sandboxed preload can require only 'electron': bundle everything else into it
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    // relative asset URLs: the same build loads from berth://app/ and from http://127.0.0.1:PORT/TOKEN/
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      emptyOutDir: true,
      minify: 'esbuild',
      chunkSizeWarningLimit: 2000,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
})
