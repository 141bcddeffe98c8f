import { describe, expect, it } from 'vitest';
import { createMessageState } from './message.ts';
import { ProtocolError } from './protocol-error.ts';
import { reduce } from './reduce.ts';
import { RUN_EVENT_TYPES, type RunEvent, RunEventSchema, type RunEventType } from './run-event.ts';
import {
  createRunEventDecoderStream,
  encodeRunEventNdjson,
  encodeRunEventSse,
  parseRunEvent,
  type RunEventDecoderOptions,
  RunEventEncoderStream,
  runEventFromSseMessage,
  type WireFormat,
} from './run-event-codec.ts';
import { collect, fromChunks, utf8 } from './test-support/streams.ts';

function decode(format: WireFormat, text: string, options: RunEventDecoderOptions = {}): Promise<RunEvent[]> {
  return collect(fromChunks([utf8(text)]).pipeThrough(createRunEventDecoderStream(format, options)));
}

function failure(format: WireFormat, text: string): Promise<unknown> {
  return decode(format, text).then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectProtocolError(error: unknown, code: ProtocolError['code']): void {
  expect(error).toBeInstanceOf(ProtocolError);
  expect((error as ProtocolError).code).toBe(code);
}

const runId = 'run_1';
const at = 1_700_000_000_000;

/** At least one sample per event type, and per variant where a type has several (`kind`). */
const SAMPLES: { readonly [K in RunEventType]: readonly Extract<RunEvent, { type: K }>[] } = {
  'run.started': [{ type: 'run.started', runId, seq: 1, at, conversationId: 'conv_1', messageId: 'msg_1' }],
  'block.started': [
    { type: 'block.started', runId, seq: 2, at, blockId: 'b1', kind: 'reasoning' },
    {
      type: 'block.started',
      runId,
      seq: 3,
      at,
      blockId: 'b2',
      kind: 'tool',
      toolCallId: 'call_1',
      name: 'cancel_order',
      title: '取消订单',
      args: { orderId: '88235' },
    },
    {
      type: 'block.started',
      runId,
      seq: 4,
      at,
      blockId: 'b3',
      kind: 'confirm',
      toolCallId: 'call_1',
      title: '取消订单',
      description: '订单 88235 · Apple Watch Series 12',
      details: [{ label: '订单号', value: '88235' }],
    },
  ],
  'block.delta': [{ type: 'block.delta', runId, seq: 5, at, blockId: 'b1', text: '让我想想…\n第二行\r\n😀' }],
  'block.updated': [
    {
      type: 'block.updated',
      runId,
      seq: 6,
      at,
      blockId: 'b2',
      kind: 'tool',
      toolCallId: 'call_1',
      status: 'failed',
      result: { ok: false },
      error: { code: 'tool_error', message: '失败' },
    },
    {
      type: 'block.updated',
      runId,
      seq: 7,
      at,
      blockId: 'b3',
      kind: 'confirm',
      status: 'approved',
      decision: { decision: 'approve', decidedAt: at + 1, reason: '好' },
    },
  ],
  'block.ended': [
    { type: 'block.ended', runId, seq: 8, at, blockId: 'b1', endedAt: at + 5, durationMs: 5, status: 'done' },
  ],
  'run.hint': [{ type: 'run.hint', runId, seq: 9, at, code: 'max_iterations', text: '已达到最大轮数' }],
  'run.snapshot': [
    {
      type: 'run.snapshot',
      runId,
      seq: 10,
      at,
      message: {
        runId,
        conversationId: 'conv_1',
        messageId: 'msg_1',
        status: 'paused',
        blocks: [
          {
            blockId: 'b1',
            kind: 'answer',
            status: 'done',
            text: '你好',
            startedAt: at,
            endedAt: at + 1,
            durationMs: 1,
          },
          {
            blockId: 'b2',
            kind: 'tool',
            toolCallId: 'call_1',
            name: 'cancel_order',
            title: '取消订单',
            status: 'awaiting_confirmation',
            argsText: '{"orderId":"88235"}',
            args: { orderId: '88235' },
            startedAt: at,
            endedAt: null,
            durationMs: null,
          },
          {
            blockId: 'b3',
            kind: 'confirm',
            toolCallId: 'call_1',
            title: '取消订单',
            description: '订单 88235',
            details: [],
            status: 'pending',
            startedAt: at,
            endedAt: null,
            durationMs: null,
          },
        ],
        pause: { reason: 'confirmation', pending: [{ toolCallId: 'call_1', name: 'cancel_order' }] },
        finishReason: null,
        error: null,
        startedAt: at,
        endedAt: null,
        usage: { inputTokens: 900, outputTokens: 120 },
        lastSeq: 10,
      },
    },
  ],
  'run.paused': [
    {
      type: 'run.paused',
      runId,
      seq: 11,
      at,
      reason: 'confirmation',
      pending: [{ toolCallId: 'call_1', name: 'cancel_order', args: { orderId: '88235' } }],
    },
  ],
  'run.resumed': [
    { type: 'run.resumed', runId, seq: 12, at, reason: 'confirmation', toolCallIds: ['call_1'] },
  ],
  'step.finished': [
    {
      type: 'step.finished',
      runId,
      seq: 12,
      at,
      step: 2,
      finishReason: 'stop',
      usage: { inputTokens: 1_200, outputTokens: 340, reasoningTokens: 300, cachedInputTokens: 1_024 },
    },
    { type: 'step.finished', runId, seq: 12, at, step: 1, finishReason: 'tool_calls' },
  ],
  'run.finished': [
    {
      type: 'run.finished',
      runId,
      seq: 13,
      at,
      status: 'cancelled',
      reason: 'user_stop',
      usage: { inputTokens: 10, outputTokens: 20 },
    },
  ],
  done: [{ type: 'done', runId, at }],
};

const ALL_SAMPLES: RunEvent[] = RUN_EVENT_TYPES.flatMap((type) => [...SAMPLES[type]]);

describe('every event type', () => {
  it('has a sample, and every sample is valid against RunEventSchema', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...RUN_EVENT_TYPES].sort());
    for (const event of ALL_SAMPLES) expect(RunEventSchema.parse(event)).toEqual(event);
  });

  it.each(RUN_EVENT_TYPES)('%s round-trips through SSE and NDJSON', async (type) => {
    for (const event of SAMPLES[type]) {
      expect(await decode('sse', encodeRunEventSse(event))).toEqual([event]);
      expect(await decode('ndjson', encodeRunEventNdjson(event))).toEqual([event]);
    }
  });

  it.each(['sse', 'ndjson'] as const)(
    'a whole run round-trips through RunEventEncoderStream (%s)',
    async (format) => {
      const decoded = await collect(
        fromChunks(ALL_SAMPLES)
          .pipeThrough(new RunEventEncoderStream(format, { retry: 1500 }))
          .pipeThrough(createRunEventDecoderStream(format)),
      );
      expect(decoded).toEqual(ALL_SAMPLES);
    },
  );
});

describe('RunEventEncoderStream', () => {
  it('writes retry on the first SSE frame only', async () => {
    const [first, second] = ALL_SAMPLES;
    if (first === undefined || second === undefined) throw new Error('samples missing');
    const chunks = await collect(
      fromChunks([first, second]).pipeThrough(new RunEventEncoderStream('sse', { retry: 3000 })),
    );
    const decoder = new TextDecoder();
    expect(chunks.map((chunk) => decoder.decode(chunk))).toEqual([
      encodeRunEventSse(first, { retry: 3000 }),
      encodeRunEventSse(second),
    ]);
    expect(decoder.decode(chunks[0])).toMatch(/^retry: 3000\nid: 1\nevent: run\.started\n/);
  });

  it('writes NDJSON lines (and never a retry)', async () => {
    const [first, second] = ALL_SAMPLES;
    if (first === undefined || second === undefined) throw new Error('samples missing');
    const chunks = await collect(
      fromChunks([first, second]).pipeThrough(new RunEventEncoderStream('ndjson', { retry: 1 })),
    );
    const decoder = new TextDecoder();
    expect(chunks.map((chunk) => decoder.decode(chunk))).toEqual([
      `${JSON.stringify(first)}\n`,
      `${JSON.stringify(second)}\n`,
    ]);
  });
});

const unknownEvent = { type: 'run.future', runId, seq: 2, at, something: 'new' };
function only<T>(list: readonly T[]): T {
  const [item] = list;
  if (item === undefined) throw new Error('sample missing');
  return item;
}

const knownA = only(SAMPLES['run.started']);
const knownB = only(SAMPLES['block.delta']);

describe('createRunEventDecoderStream', () => {
  it('skips an unknown event type in SSE and reports it to onUnknownEvent', async () => {
    const unknown: string[] = [];
    const text = `${encodeRunEventSse(knownA)}id: 2\nevent: run.future\ndata: ${JSON.stringify(unknownEvent)}\n\n${encodeRunEventSse(knownB)}`;
    expect(await decode('sse', text, { onUnknownEvent: (type) => unknown.push(type) })).toEqual([
      knownA,
      knownB,
    ]);
    expect(unknown).toEqual(['run.future']);
  });

  it('reports the payload type of an unknown SSE event that has no event: line', async () => {
    const unknown: string[] = [];
    const text = `data: ${JSON.stringify(unknownEvent)}\n\n${encodeRunEventSse(knownB)}`;
    expect(await decode('sse', text, { onUnknownEvent: (type) => unknown.push(type) })).toEqual([knownB]);
    expect(unknown).toEqual(['run.future']);
  });

  it('skips an unknown event type in NDJSON and reports it to onUnknownEvent', async () => {
    const unknown: string[] = [];
    const text = `${encodeRunEventNdjson(knownA)}${JSON.stringify(unknownEvent)}\n${encodeRunEventNdjson(knownB)}`;
    expect(await decode('ndjson', text, { onUnknownEvent: (type) => unknown.push(type) })).toEqual([
      knownA,
      knownB,
    ]);
    expect(unknown).toEqual(['run.future']);
  });

  it.each(['sse', 'ndjson'] as const)(
    'errors with invalid_event on a known type with an invalid payload (%s)',
    async (format) => {
      const { text: _text, ...withoutText } = knownB;
      const bad = [
        { ...knownB, seq: 0 },
        withoutText,
        { ...knownB, text: 42 },
        { ...knownA, at: 'yesterday' },
      ];
      for (const payload of bad) {
        const wire =
          format === 'sse'
            ? `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`
            : `${JSON.stringify(payload)}\n`;
        // A valid event first: the error must come from the bad one, not from the stream's start.
        const prefix = format === 'sse' ? encodeRunEventSse(knownA) : encodeRunEventNdjson(knownA);
        const error = await failure(format, `${prefix}${wire}`);
        expectProtocolError(error, 'invalid_event');
        expect((error as Error).message).toMatch(
          new RegExp(`^invalid ${payload.type.replace('.', '\\.')} event: `),
        );
      }
    },
  );

  it.each(['sse', 'ndjson'] as const)(
    'errors with invalid_event when the payload has no string type (%s)',
    async (format) => {
      for (const payload of [{ runId }, { type: 7 }, null, [1], 'run.started']) {
        const wire =
          format === 'sse' ? `data: ${JSON.stringify(payload)}\n\n` : `${JSON.stringify(payload)}\n`;
        const error = await failure(format, wire);
        expectProtocolError(error, 'invalid_event');
        expect((error as Error).message).toBe('a run event needs a string "type"');
      }
    },
  );

  it('errors with invalid_json when SSE data is not JSON', async () => {
    expectProtocolError(await failure('sse', 'event: block.delta\ndata: {not json\n\n'), 'invalid_json');
  });

  it('errors with invalid_event when an SSE event: name disagrees with the data type', async () => {
    const text = `event: block.ended\ndata: ${JSON.stringify(knownB)}\n\n`;
    const error = await failure('sse', text);
    expectProtocolError(error, 'invalid_event');
    expect((error as Error).message).toBe('SSE event "block.ended" carries a block.delta payload');
    // An unknown event name carrying a known payload is a disagreement too, not an unknown event.
    expectProtocolError(
      await failure('sse', `event: run.future\ndata: ${JSON.stringify(knownB)}\n\n`),
      'invalid_event',
    );
  });

  it('accepts an SSE frame without event: (type message) carrying a known payload', async () => {
    expect(await decode('sse', `data: ${JSON.stringify(knownB)}\n\n`)).toEqual([knownB]);
    expect(await decode('sse', `event: message\ndata: ${JSON.stringify(knownB)}\n\n`)).toEqual([knownB]);
  });

  it('passes retry and comments to onRetry and onComment', async () => {
    const retries: number[] = [];
    const comments: string[] = [];
    const text = `${encodeRunEventSse(knownA, { retry: 2500 })}: ping\n\n${encodeRunEventSse(knownB)}`;
    expect(
      await decode('sse', text, { onRetry: (ms) => retries.push(ms), onComment: (c) => comments.push(c) }),
    ).toEqual([knownA, knownB]);
    expect(retries).toEqual([2500]);
    expect(comments).toEqual(['ping']);
  });

  it('drops fields it does not know from a known type (a newer server may add some)', async () => {
    expect(await decode('ndjson', `${JSON.stringify({ ...knownB, futureField: 1 })}\n`)).toEqual([knownB]);
  });
});

describe('parseRunEvent / runEventFromSseMessage', () => {
  it('returns undefined for an unknown type and the parsed event for a known one', () => {
    expect(parseRunEvent(unknownEvent)).toBeUndefined();
    expect(parseRunEvent(JSON.parse(JSON.stringify(knownB)))).toEqual(knownB);
  });

  it('skips validation when validate is false', () => {
    const invalid = { ...knownB, seq: -1 };
    expect(parseRunEvent(invalid, { validate: false })).toBe(invalid);
    expect(() => parseRunEvent(invalid)).toThrow(ProtocolError);
  });

  it('checks the SSE event name against the payload type', () => {
    const data = JSON.stringify(knownB);
    expect(runEventFromSseMessage({ event: 'block.delta', data, lastEventId: '5' })).toEqual(knownB);
    expect(() => runEventFromSseMessage({ event: 'done', data, lastEventId: '5' })).toThrow(
      'SSE event "done" carries a block.delta payload',
    );
  });
});

describe('run.started with a traceId', () => {
  const started = { ...knownA, traceId: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };

  it.each(['sse', 'ndjson'] as const)('carries it over the wire (%s)', async (format) => {
    const wire = format === 'sse' ? encodeRunEventSse(started) : encodeRunEventNdjson(started);
    expect(await decode(format, wire)).toEqual([started]);
  });

  it('leaves the reduced message as it is without one', () => {
    expect(reduce(createMessageState(), started)).toEqual(reduce(createMessageState(), knownA));
  });

  it('refuses an empty one and one longer than 200 characters', () => {
    expect(parseRunEvent({ ...knownA, traceId: 'x'.repeat(200) })).toMatchObject({
      traceId: 'x'.repeat(200),
    });
    for (const traceId of ['', 'x'.repeat(201), 42])
      expect(() => parseRunEvent({ ...knownA, traceId })).toThrow(ProtocolError);
  });
});
