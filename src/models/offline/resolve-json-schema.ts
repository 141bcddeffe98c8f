import { isRecord } from './read-run.ts';

/**
 * Reading a tool's JSON Schema as an argument fitter needs it: the type a node stands for, with local
 * `$ref`s followed and `anyOf` / `oneOf` / `allOf` flattened. Apart from the fitting itself, which
 * decides what goes in each node; public (`runstream`), for a model of one's own that fits arguments.
 */
export type JsonSchema = Record<string, unknown>;

/** The schema's type: its `type` (the first that is not null), else what its keywords imply. */
export function typeOf(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type): type is string => typeof type === 'string');
    return types.find((type) => type !== 'null') ?? types[0];
  }
  if (isRecord(schema.properties)) return 'object';
  if ('items' in schema) return 'array';
  return undefined;
}

/** Follow local `$ref`s, take the first branch of `anyOf`/`oneOf` that is not null, merge `allOf`. */
export function resolveSchema(schema: JsonSchema, root: JsonSchema, depth = 0): JsonSchema {
  if (depth > 8) return schema;
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#')) {
    const target = pointer(root, schema.$ref);
    const { $ref: _ref, ...rest } = schema;
    return resolveSchema({ ...(isRecord(target) ? target : {}), ...rest }, root, depth + 1);
  }
  const branches = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (branches) {
    const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = schema;
    const branch =
      branches.filter(isRecord).find((candidate) => candidate.type !== 'null') ?? branches.find(isRecord);
    return resolveSchema({ ...(branch ?? {}), ...rest }, root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    let merged: JsonSchema = rest;
    for (const part of allOf.filter(isRecord)) {
      const resolved = resolveSchema(part, root, depth + 1);
      merged = {
        ...resolved,
        ...merged,
        properties: { ...asRecord(resolved.properties), ...asRecord(merged.properties) },
        required: [...asArray(resolved.required), ...asArray(merged.required)],
      };
    }
    return merged;
  }
  return schema;
}

function pointer(root: JsonSchema, ref: string): unknown {
  let node: unknown = root;
  for (const segment of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
    node = isRecord(node) ? node[key] : undefined;
  }
  return node;
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
