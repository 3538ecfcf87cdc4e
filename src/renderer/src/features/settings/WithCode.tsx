/** A sentence from the core with its commands in backticks, shown as code (never the backticks themselves). */
export function WithCode({ text }: { text: string }) {
  const parts = text.split('`')
  // an odd count of backticks leaves the last one as it is: the parts between pairs are code
  if (parts.length % 2 === 0) return <>{text}</>
  return <>{parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : p))}</>
}
