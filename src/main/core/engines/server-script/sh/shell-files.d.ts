// The server's shell files are bundled as text (esbuild's and vite's '.sh' loader, see
// scripts/shell-text.mjs).
declare module '*.sh' {
  const text: string
  export default text
}
