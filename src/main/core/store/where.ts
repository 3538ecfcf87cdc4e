/**
 * The WHERE clause of a filtered read, and its parameters: the fixed conditions, then each
 * condition whose value was given (undefined, null or '' leaves it out). Keys name the parameters.
 */
export function whereOf(
  conditions: Record<string, [sql: string, value: unknown]>,
  fixed: string[] = [],
): { where: string; params: Record<string, unknown> } {
  const where = [...fixed]
  const params: Record<string, unknown> = {}
  for (const [param, [sql, value]] of Object.entries(conditions)) {
    if (value === undefined || value === null || value === '') continue
    where.push(sql)
    params[param] = value
  }
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params }
}
