import { z } from 'zod';
import type { ToolDefinition } from '../../../../src/models/chat-model.ts';

/** Host tools as a CLI host would declare them, for the demo model's tests. */
export const READ_FILE: ToolDefinition = {
  name: 'read_file',
  description: 'Read a text file from the local disk',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path of the file, relative to the working directory' },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

export const LOCAL_TIME: ToolDefinition = {
  name: 'local_time',
  description: 'Get the local time of the host',
  parameters: {
    type: 'object',
    properties: { timezone: { type: 'string', description: 'IANA time zone, e.g. Asia/Shanghai' } },
    additionalProperties: false,
  },
};

export const WRITE_FILE: ToolDefinition = {
  name: 'write_file',
  description: 'Write a text file to the local disk',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
};

export const LIST_DIRECTORY: ToolDefinition = {
  name: 'list_directory',
  description: 'List the files in a directory',
  parameters: {
    type: 'object',
    properties: { dir: { type: 'string', default: '.' }, recursive: { type: 'boolean' } },
    required: ['dir'],
  },
};

export const GET_WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    },
    required: ['city', 'unit'],
  },
};

export const STOCK_PRICE: ToolDefinition = {
  name: 'quote_ticker',
  description: 'Latest stock price for a ticker symbol',
  parameters: {
    type: 'object',
    properties: { symbol: { type: 'string', minLength: 1 } },
    required: ['symbol'],
  },
};

/** NovaShop's own tools as the runtime offers them (no schemas needed here). */
export const NOVASHOP_TOOLS: ToolDefinition[] = ['load_skill', 'query_order', 'search_knowledge'].map(
  (name) => ({ name, description: '', parameters: { type: 'object', properties: {} } }),
);

/** Whether the arguments validate against the JSON Schema (zod 4's `z.fromJSONSchema`), and why not. */
export function schemaProblems(schema: Record<string, unknown>, args: unknown): string[] {
  const result = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(args);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
}
