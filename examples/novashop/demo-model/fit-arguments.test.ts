import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitArguments, fitArgumentsDetailed, type JsonSchema } from './fit-arguments.ts';
import { fileTokensIn, numbersIn, timeZoneIn } from './message-readers.ts';
import {
  GET_WEATHER,
  LIST_DIRECTORY,
  LOCAL_TIME,
  READ_FILE,
  schemaProblems,
  WRITE_FILE,
} from './test-support/host-tools.ts';

function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Fit, and check the result against the schema with zod's `z.fromJSONSchema`. */
function checkedFit(schema: JsonSchema, message: string, toolName?: string): Record<string, unknown> {
  const args = fitArguments(schema, message, toolName ? { toolName } : {});
  expect(schemaProblems(schema, args)).toEqual([]);
  return args;
}

describe('strings named like a path or file', () => {
  it.each([
    ['use read_file to read notes.txt', 'notes.txt'],
    ['帮我读一下 README.md 这个文件', 'README.md'],
    ['读一下README.md这个文件', 'README.md'],
    ['open ./docs/guide.v2.md please', './docs/guide.v2.md'],
    ['read "my notes.md"', 'my notes.md'],
    ['cat ~/todo.txt.', '~/todo.txt'],
  ])('%s → %s', (message, path) => {
    expect(checkedFit(READ_FILE.parameters, message, 'read_file')).toEqual({ path });
  });

  it('takes a file name for filename, filePath and file_path too', () => {
    for (const name of ['filename', 'filePath', 'file_path', 'file']) {
      expect(checkedFit(object({ [name]: { type: 'string' } }, [name]), 'show me a.json')).toEqual({
        [name]: 'a.json',
      });
    }
  });

  it('reports a required path the message does not give, with a stand-in that still fits', () => {
    const fitted = fitArgumentsDetailed(READ_FILE.parameters, 'read the file');
    expect(fitted.missing).toEqual(['path']);
    expect(schemaProblems(READ_FILE.parameters, fitted.args)).toEqual([]);
    expect(fitArgumentsDetailed(READ_FILE.parameters, 'read notes.txt').missing).toEqual([]);
  });

  it('gives a directory a path, else the default, else .', () => {
    expect(checkedFit(LIST_DIRECTORY.parameters, 'list the files in src/')).toEqual({ dir: 'src/' });
    expect(checkedFit(LIST_DIRECTORY.parameters, 'list the files here')).toEqual({ dir: '.' });
    expect(checkedFit(object({ folder: { type: 'string' } }, ['folder']), 'what is here')).toEqual({
      folder: '.',
    });
  });

  it('fills an optional boolean the message names', () => {
    expect(checkedFit(LIST_DIRECTORY.parameters, 'list src/ recursively')).toEqual({
      dir: 'src/',
      recursive: true,
    });
  });

  it('fills an array of paths with every file name', () => {
    const schema = object({ paths: { type: 'array', items: { type: 'string' }, minItems: 1 } }, ['paths']);
    expect(checkedFit(schema, 'compare a.txt and b.txt')).toEqual({ paths: ['a.txt', 'b.txt'] });
  });
});

describe('time zones', () => {
  it('leaves an optional zone out unless the message names one', () => {
    expect(checkedFit(LOCAL_TIME.parameters, '现在几点了')).toEqual({});
    expect(checkedFit(LOCAL_TIME.parameters, 'what time is it in Europe/Berlin?')).toEqual({
      timezone: 'Europe/Berlin',
    });
    expect(checkedFit(LOCAL_TIME.parameters, '东京现在几点')).toEqual({ timezone: 'Asia/Tokyo' });
    expect(checkedFit(LOCAL_TIME.parameters, 'time in UTC please')).toEqual({ timezone: 'UTC' });
  });

  it('gives a required zone UTC (or its default) when the message names none', () => {
    expect(checkedFit(object({ tz: { type: 'string' } }, ['tz']), 'what time is it')).toEqual({ tz: 'UTC' });
    expect(
      checkedFit(object({ timeZone: { type: 'string', default: 'Asia/Shanghai' } }, ['timeZone']), 'time?'),
    ).toEqual({
      timeZone: 'Asia/Shanghai',
    });
  });

  it('ignores zone-like text that is not a zone', () => {
    expect(timeZoneIn('Asia/Atlantis')).toBeUndefined();
    expect(timeZoneIn('北京时间几点')).toBe('Asia/Shanghai');
  });
});

describe('query-like strings', () => {
  it('take the message without the tool name', () => {
    const schema = object({ query: { type: 'string' } }, ['query']);
    expect(checkedFit(schema, 'use search_docs to find the retry policy', 'search_docs')).toEqual({
      query: 'find the retry policy',
    });
    expect(checkedFit(object({ q: { type: 'string', maxLength: 5 } }, ['q']), 'hello world')).toEqual({
      q: 'hello',
    });
    expect(checkedFit(object({ prompt: { type: 'string' } }), '调用 ask_llm 写一首诗', 'ask_llm')).toEqual({
      prompt: '写一首诗',
    });
  });

  it('what to write: quoted text, else the message without the file and the verbs', () => {
    expect(checkedFit(WRITE_FILE.parameters, 'write hello to notes.txt')).toEqual({
      path: 'notes.txt',
      content: 'hello',
    });
    expect(checkedFit(WRITE_FILE.parameters, '把 “早上好” 写到 notes.txt')).toEqual({
      path: 'notes.txt',
      content: '早上好',
    });
  });
});

describe('enums, numbers, booleans', () => {
  it('an enum: the value the message mentions, else the default, else the first', () => {
    expect(checkedFit(GET_WEATHER.parameters, 'weather in Tokyo in fahrenheit')).toEqual({
      city: 'Tokyo',
      unit: 'fahrenheit',
    });
    expect(checkedFit(GET_WEATHER.parameters, '北京天气')).toEqual({ city: '北京', unit: 'celsius' });
    const schema = object({ level: { enum: ['low', 'high'] } }, ['level']);
    expect(checkedFit(schema, 'anything')).toEqual({ level: 'low' });
    expect(checkedFit(schema, 'set it HIGH')).toEqual({ level: 'high' });
    expect(checkedFit(object({ size: { type: 'integer', enum: [1, 3, 5] } }, ['size']), 'size 3')).toEqual({
      size: 3,
    });
  });

  it('a number: from the message (not from file names), within bounds; else default, minimum or 0', () => {
    const lines = { type: 'integer', minimum: 1, maximum: 50 };
    expect(checkedFit(object({ lines }, ['lines']), 'the first 20 lines of log2.txt')).toEqual({ lines: 20 });
    expect(checkedFit(object({ lines }, ['lines']), 'the first 500 lines')).toEqual({ lines: 50 });
    expect(checkedFit(object({ lines }, ['lines']), 'some lines')).toEqual({ lines: 1 });
    expect(checkedFit(object({ lines: { ...lines, default: 10 } }, ['lines']), 'some lines')).toEqual({
      lines: 10,
    });
    expect(checkedFit(object({ n: { type: 'number' } }, ['n']), 'none')).toEqual({ n: 0 });
    expect(checkedFit(object({ n: { type: 'number', exclusiveMinimum: 0 } }, ['n']), '2.5 please')).toEqual({
      n: 2.5,
    });
    expect(numbersIn('read v1.2/notes3.txt then wait 7 s, in Etc/GMT+8')).toEqual([7]);
  });

  it('a boolean: false unless the message says yes or true (or the default)', () => {
    const schema = object({ force: { type: 'boolean' } }, ['force']);
    expect(checkedFit(schema, 'delete it')).toEqual({ force: false });
    expect(checkedFit(schema, 'yes, delete it')).toEqual({ force: true });
    expect(checkedFit(object({ force: { type: 'boolean', default: true } }, ['force']), 'go')).toEqual({
      force: true,
    });
  });
});

describe('nested objects, defaults and combinators', () => {
  it('fills nested objects, recursively', () => {
    const schema = object(
      {
        path: { type: 'string' },
        options: object(
          {
            encoding: { type: 'string', enum: ['utf8', 'latin1'], default: 'utf8' },
            maxBytes: { type: 'integer', minimum: 1, default: 4096 },
            follow: { type: 'boolean' },
          },
          ['encoding', 'maxBytes'],
        ),
        extra: object({ note: { type: 'string' } }, ['note']),
      },
      ['path', 'options'],
    );
    expect(checkedFit(schema, 'read notes.txt')).toEqual({
      path: 'notes.txt',
      options: { encoding: 'utf8', maxBytes: 4096 },
    });
    expect(checkedFit(schema, 'read notes.txt as latin1')).toEqual({
      path: 'notes.txt',
      options: { encoding: 'latin1', maxBytes: 4096 },
    });
  });

  it('honours defaults of required strings and uses them instead of a stand-in', () => {
    const schema = object({ format: { type: 'string', default: 'iso' }, label: { type: 'string' } }, [
      'format',
    ]);
    expect(checkedFit(schema, 'what time is it')).toEqual({ format: 'iso' });
  });

  it('follows $ref, anyOf/oneOf (not null) and allOf', () => {
    const schema: JsonSchema = {
      type: 'object',
      $defs: { Path: { type: 'string', minLength: 1 } },
      properties: {
        file: { $ref: '#/$defs/Path' },
        zone: { anyOf: [{ type: 'null' }, { type: 'string' }] },
        limit: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
      },
      required: ['file', 'zone', 'limit'],
    };
    expect(checkedFit(schema, 'tail app.log, 5 lines, Asia/Tokyo')).toEqual({
      file: 'app.log',
      zone: 'Asia/Tokyo',
      limit: 5,
    });
    const merged: JsonSchema = {
      allOf: [
        object({ path: { type: 'string' } }, ['path']),
        { properties: { n: { type: 'integer' } }, required: ['n'] },
      ],
    };
    expect(fitArguments(merged, 'read a.md')).toEqual({ path: 'a.md', n: 0 });
  });

  it('writes only declared properties, and {} for a schema without any', () => {
    expect(checkedFit({ type: 'object', properties: {}, additionalProperties: false }, 'anything')).toEqual(
      {},
    );
    expect(fitArguments({}, 'anything')).toEqual({});
  });

  it('leaves optional properties out unless the message gives them', () => {
    const schema = object({ path: { type: 'string' }, note: { type: 'string' }, count: { type: 'integer' } });
    expect(checkedFit(schema, 'hello')).toEqual({});
    expect(checkedFit(schema, 'read x.md 3 times')).toEqual({ path: 'x.md', count: 3 });
  });
});

describe('whatever the schema and message, the arguments fit', () => {
  const names = [
    'path',
    'file',
    'dir',
    'timezone',
    'tz',
    'query',
    'q',
    'text',
    'count',
    'limit',
    'mode',
    'unit',
    'enabled',
    'name',
    'url',
    'city',
    'content',
    'options',
  ];
  const leaf = fc.oneof(
    fc.constant<JsonSchema>({ type: 'string' }),
    fc.constant<JsonSchema>({ type: 'string', default: 'x' }),
    fc.constant<JsonSchema>({ type: 'string', maxLength: 8 }),
    fc
      .tuple(fc.integer({ min: -5, max: 5 }), fc.integer({ min: 0, max: 100 }))
      .map(([minimum, span]): JsonSchema => ({ type: 'integer', minimum, maximum: minimum + span })),
    fc.constant<JsonSchema>({ type: 'number', exclusiveMinimum: 0 }),
    fc.constant<JsonSchema>({ type: 'boolean' }),
    fc.constant<JsonSchema>({ type: 'string', enum: ['fast', 'slow', 'celsius'] }),
    fc.constant<JsonSchema>({ type: ['string', 'null'] }),
    fc.constant<JsonSchema>({ type: 'array', items: { type: 'string' }, minItems: 1 }),
  );
  const schema = fc.letrec<{ node: JsonSchema }>((tie) => ({
    node: fc
      .uniqueArray(
        fc.tuple(
          fc.constantFrom(...names),
          fc.oneof({ depthSize: 'small' }, leaf, tie('node')),
          fc.boolean(),
        ),
        {
          selector: ([name]) => name,
          maxLength: 5,
        },
      )
      .map(
        (entries): JsonSchema =>
          object(
            Object.fromEntries(entries.map(([name, value]) => [name, value])),
            entries.filter(([, , required]) => required).map(([name]) => name),
          ),
      ),
  })).node;
  const message = fc.constantFrom(
    'use read_file to read notes.txt',
    '帮我读一下 README.md 这个文件',
    'what time is it in Asia/Tokyo? yes',
    '现在几点了',
    'the first 20 lines of ./logs/app.log in slow mode',
    'weather in 北京 in celsius, 3 days',
    'hello',
  );

  it('validates against the schema (z.fromJSONSchema)', () => {
    fc.assert(
      fc.property(schema, message, (generated, text) => {
        expect(schemaProblems(generated, fitArguments(generated, text, { toolName: 'read_file' }))).toEqual(
          [],
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('fileTokensIn', () => {
  it('finds file names, not numbers, versions or URLs', () => {
    expect(fileTokensIn('read notes.txt and src/a.test.ts, not 3.5 or v1.2 or https://x.io/a.md')).toEqual([
      'notes.txt',
      'src/a.test.ts',
    ]);
  });
});

describe('identifiers', () => {
  const cancel = object({ orderId: { type: 'string', pattern: '^\\d+$' } }, ['orderId']);

  it.each([
    ['用 orders__cancel_order 取消订单 1002', '1002'],
    ['cancel order #1003 with orders__cancel_order please', '1003'],
  ])('a pattern takes the token that fits it: %s → %s', (message, orderId) => {
    expect(checkedFit(cancel, message, 'orders__cancel_order')).toEqual({ orderId });
  });

  it('a name that says identifier takes the first token with a digit', () => {
    const schema = object({ sku: { type: 'string' } }, ['sku']);
    expect(checkedFit(schema, '查一下 NS-PK3-NVY-L 的库存', 'stock_of')).toEqual({ sku: 'NS-PK3-NVY-L' });
  });

  it('without a fitting token, the rest of the message stands in as before', () => {
    const schema = object({ orderId: { type: 'string' } }, ['orderId']);
    expect(fitArguments(schema, '取消我的订单', { toolName: 'cancel' })).toEqual({ orderId: '取消我的订单' });
    const broken = object({ code: { type: 'string', pattern: '([' } }, ['code']);
    expect(fitArguments(broken, 'code 42', { toolName: 'x' }).code).toBeTypeOf('string');
  });
});
