// What Docker's errors mean, read in one place (dockerode rejects with the HTTP status as statusCode).

/** Docker answered 404: the container, image or volume is not there (often the wanted outcome of a removal). */
export function isNotFound(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { statusCode?: unknown }).statusCode === 404
}
