import type { Plugin } from 'vite'
export function shellText(): Plugin
