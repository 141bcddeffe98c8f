import { z } from 'zod';
import type { AnyTool } from './tool.ts';

/** The JSON Schema the model is shown for a tool: its own when declared with one, else derived. */
export function toolJsonSchema(tool: AnyTool): Record<string, unknown> {
  if (tool.inputSchema !== undefined) return tool.inputSchema;
  const schema = z.toJSONSchema(tool.parameters, { target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * A short fingerprint of what a call of `tool` means: its effect and the schema of its input. A
 * paused call keeps it, so an approval after the tool changed (a redeploy between the card and the
 * click) is refused instead of running a different tool under the old arguments.
 */
export function toolSchemaHash(tool: AnyTool): string {
  return fnv1a(`${tool.effect}\u0000${stableStringify(toolJsonSchema(tool))}`);
}

/** JSON with object keys sorted, so equal schemas hash equally whatever their key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** 64-bit FNV-1a in hex: not a security hash, a cheap and stable fingerprint. */
function fnv1a(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= BigInt(text.charCodeAt(index));
    hash = (hash * prime) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}
