/**
 * A copy as a trip through a JSON column would make it, so the memory store hands back the same values
 * as SQLite and PostgreSQL; shared by `MemoryRunStore` and `MemoryToolCalls`, hence its own file.
 */
export function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
