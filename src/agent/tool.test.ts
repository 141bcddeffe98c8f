import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from '../runtime/index.ts';
import { AgentDefinitionError } from './agent-definition-error.ts';
import { type AgentTool, tool } from './tool.ts';

const context: ToolContext = {
  runId: 'run_1',
  conversationId: 'conv_1',
  userId: 'usr_1',
  toolCallId: 'call_1',
  signal: new AbortController().signal,
};

function definitionError(make: () => unknown): AgentDefinitionError {
  try {
    make();
  } catch (error) {
    if (error instanceof AgentDefinitionError) return error;
    throw error;
  }
  throw new Error('expected an AgentDefinitionError');
}

describe('tool()', () => {
  it('returns the definition as it is, the input typed from a zod schema', async () => {
    const definition = {
      name: 'book_repair',
      title: '预约维修',
      description: 'Book a repair visit.',
      inputSchema: z.object({ serialNumber: z.string(), date: z.string().optional() }),
      execute: async (input: { serialNumber: string; date?: string | undefined }) => ({
        booked: input.serialNumber,
      }),
    };
    const made = tool(definition);
    expect(made).toBe(definition);
    expectTypeOf(made).toExtend<AgentTool<{ serialNumber: string; date?: string | undefined }>>();
    expect(await made.execute({ serialNumber: 'SN1' }, context)).toEqual({ booked: 'SN1' });
  });

  it('infers the input of execute, needsApproval and confirmation from the zod schema', () => {
    tool({
      name: 'refund',
      description: 'Refund an amount.',
      inputSchema: z.object({ amount: z.number() }),
      needsApproval: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ amount: number }>();
        return input.amount > 100;
      },
      confirmation: (input) => ({ title: '退款', description: `${input.amount} 元`, fields: [] }),
      execute: (input) => input.amount,
    });
  });

  it('takes a plain JSON Schema: the input is unknown unless given as a type parameter', () => {
    const untyped = tool({
      name: 'lookup',
      description: 'Look a part up.',
      inputSchema: { type: 'object', properties: { part: { type: 'string' } }, required: ['part'] },
      readOnly: true,
      execute: (input) => {
        expectTypeOf(input).toBeUnknown();
        return 'ok';
      },
    });
    expect(untyped.readOnly).toBe(true);
    tool<{ part: string }>({
      name: 'lookup_typed',
      description: 'Look a part up.',
      inputSchema: { type: 'object', properties: { part: { type: 'string' } } },
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ part: string }>();
        return input.part;
      },
    });
  });

  it.each([
    ['a name starting with a digit', { name: '1tool' }, 'must start with a letter'],
    ['a name with a space', { name: 'book repair' }, 'must start with a letter'],
    ['a name over 64 characters', { name: `t${'x'.repeat(64)}` }, 'at most 64'],
    ['no description', { description: '  ' }, 'needs a description'],
    ['no execute', { execute: undefined }, 'execute must be a function'],
    ['a misspelt field', { needsAproval: false }, 'unknown field "needsAproval"'],
    ['needsApproval of another kind', { needsApproval: 'yes' }, 'needsApproval must be'],
    ['a timeout of zero', { timeoutMs: 0 }, 'timeoutMs must be a positive'],
    ['no inputSchema', { inputSchema: undefined }, 'needs an inputSchema'],
    ['a JSON Schema that is not an object', { inputSchema: { type: 'string' } }, '"type": "object"'],
    ['a zod schema that is not an object', { inputSchema: z.string() }, 'must describe an object'],
    [
      'a zod schema no model can be shown',
      { inputSchema: z.object({ when: z.date() }) },
      'cannot be shown to a model as JSON Schema',
    ],
  ])('refuses %s', (_case, change, expected) => {
    const error = definitionError(() =>
      tool({
        name: 'book_repair',
        description: 'Book a repair visit.',
        inputSchema: z.object({ serialNumber: z.string() }),
        execute: () => 'ok',
        ...(change as object),
      } as never),
    );
    expect(error.message).toContain(expected);
  });

  it('names the tool in its errors', () => {
    expect(
      definitionError(() =>
        tool({ name: 'book_repair', description: '', inputSchema: { type: 'object' }, execute: () => 1 }),
      ).message,
    ).toBe('tool book_repair: needs a description (what the model reads to decide when to call it)');
  });
});
