import { describe, expect, it } from 'vitest';
import { HostToolDefinitionSchema, hostToolValidator } from './host-tool.ts';

describe('hostToolValidator', () => {
  const readFile = {
    name: 'read_local_file',
    description: 'Read a file.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        encoding: { type: 'string', enum: ['utf8', 'latin1'] },
        maxLines: { type: 'integer', minimum: 1 },
      },
      required: ['path'],
      additionalProperties: false,
    },
  };

  it('validates arguments against the JSON Schema, with readable errors', () => {
    const validator = hostToolValidator(readFile);
    expect(validator.exact).toBe(true);
    expect(validator.note).toBeUndefined();
    expect(validator.validate({ path: 'a.txt', maxLines: 3 })).toEqual({
      success: true,
      data: { path: 'a.txt', maxLines: 3 },
    });
    for (const args of [
      {},
      { path: '' },
      { path: 'a', encoding: 'utf16' },
      { path: 'a', maxLines: 1.5 },
      { path: 'a', x: 1 },
      'a.txt',
    ]) {
      const result = validator.validate(args);
      expect(result.success).toBe(false);
      expect(!result.success && result.error.length).toBeGreaterThan(0);
    }
  });

  it('falls back to any object when the schema cannot be converted, and says why', () => {
    const validator = hostToolValidator({
      name: 'odd',
      description: 'A schema zod cannot convert.',
      parameters: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } },
    });
    expect(validator.exact).toBe(false);
    expect(validator.note).toMatch(/tool odd could not be converted .*any JSON object is accepted/);
    expect(validator.validate({ a: 1, b: [2] })).toEqual({ success: true, data: { a: 1, b: [2] } });
    expect(validator.validate('text').success).toBe(false);
    expect(validator.validate([1]).success).toBe(false);
  });

  it('accepts an empty schema as anything the model writes', () => {
    expect(
      hostToolValidator({ name: 'any', description: '', parameters: {} }).validate({ x: 1 }).success,
    ).toBe(true);
  });
});

describe('HostToolDefinitionSchema', () => {
  it('takes names a model API accepts and a JSON Schema object', () => {
    expect(
      HostToolDefinitionSchema.safeParse({ name: 'local-time_2', description: '', parameters: {} }).success,
    ).toBe(true);
    for (const definition of [
      { name: 'with space', description: '', parameters: {} },
      { name: 'x'.repeat(65), description: '', parameters: {} },
      { name: '名字', description: '', parameters: {} },
      { name: 'x', parameters: {} },
      { name: 'x', description: '', parameters: [] },
    ])
      expect(HostToolDefinitionSchema.safeParse(definition).success).toBe(false);
  });
});
