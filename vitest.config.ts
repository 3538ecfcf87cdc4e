import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'
import { shellText } from './scripts/shell-text.mjs'

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [shellText()],
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/unit/**/*.test.ts'],
          exclude: ['src/renderer/**'],
          environment: 'node',
        },
      },
      {
        // the renderer's stores and components, in a DOM (happy-dom), against a fake core
        plugins: [react()],
        test: {
          name: 'renderer',
          include: ['src/renderer/**/*.test.ts', 'src/renderer/**/*.test.tsx'],
          environment: 'happy-dom',
        },
      },
      {
        plugins: [shellText()],
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // one file at a time: the files share two real engines on a 2-core machine
          fileParallelism: false,
        },
      },
    ],
  },
})
