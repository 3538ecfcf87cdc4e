/**
 * A tag for shell programs kept in TypeScript: the text is taken raw (backslashes stay), and since
 * `${` would interpolate, shell parameter expansions are written `\${...}` and restored here.
 */
export function sh(strings: TemplateStringsArray, ...values: never[]): string {
  if (values.length) throw new Error('shell text takes no interpolations')
  return strings.raw.join('').replaceAll('\\${', '${')
}
