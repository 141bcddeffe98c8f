/**
 * Freezes a value and everything reachable from it, so a test can prove code never mutates its
 * input: in ESM (strict mode) a write to a frozen object throws instead of passing silently.
 */
export function deepFreeze<T>(value: T, seen: WeakSet<object> = new WeakSet()): T {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}
