import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Block, ConfirmBlockStatusSchema, ToolBlockStatusSchema } from './block.ts';
import type { Message } from './message.ts';
import { type RunEvent, RunEventSchema } from './run-event.ts';
import {
  createRunEventDecoderStream,
  encodeRunEventNdjson,
  encodeRunEventSse,
  toSseFrame,
} from './run-event-codec.ts';
import { SseDecoderStream, type SseMessage } from './sse-decoder-stream.ts';
import { encodeSseFrame, type SseFrame } from './sse-encoder-stream.ts';
import { arbitraryRunEvents } from './test-support/index.ts';
import { collect, fromChunks, utf8 } from './test-support/streams.ts';

/**
 * Property: any split of an encoded stream into chunks (inside multi-byte characters, between CR and
 * LF, empty chunks) decodes to the same events as the unsplit stream, and to the events encoded.
 */

/**
 * 300 runs each take about a second here. A failure can make shrinking run for minutes (these inputs
 * are large), so the run stops after 15 s (inside Vitest's 20 s) and reports what it has shrunk so far;
 * `failOnInterrupt` keeps a machine too slow for 300 runs from passing silently.
 */
const PROPERTY_OPTIONS = {
  numRuns: 300,
  plugins: [fc.interruptAfterTimeLimit(15_000, { failOnInterrupt: true })],
};

// ---------------------------------------------------------------------------------------------
// Streams

// ---------------------------------------------------------------------------------------------
// Wire text: line ends and chunking

type LineEnd = '\n' | '\r' | '\r\n';

/**
 * Rewrites every LF of encoder output (where each LF is a line end: the encoders never write a raw
 * line break inside a field) with a line end from `ends`, cycling. A CR followed by an LF would merge
 * two line ends into one CRLF, so after a lone CR an LF becomes CRLF instead.
 */
function withLineEnds(text: string, ends: readonly LineEnd[]): string {
  if (ends.length === 0) return text;
  let index = 0;
  let previous = '';
  return text.replace(/\n/g, () => {
    let end = ends[index % ends.length] ?? '\n';
    index += 1;
    if (previous === '\r' && end === '\n') end = '\r\n';
    previous = end;
    return end;
  });
}

type SplitMode = 'random' | 'betweenCrLf' | 'insideCharacters';

/**
 * Splits bytes at `cuts` (taken modulo length + 1; repeats give empty chunks) and, by mode, also
 * between every CR and the LF after it, or after the first byte of every multi-byte character.
 */
function split(bytes: Uint8Array, cuts: readonly number[], mode: SplitMode): Uint8Array[] {
  const points = cuts.map((cut) => cut % (bytes.length + 1));
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i] ?? 0;
    if (mode === 'betweenCrLf' && byte === 0x0d && bytes[i + 1] === 0x0a) points.push(i + 1);
    if (mode === 'insideCharacters' && byte >= 0xc0) points.push(i + 1);
  }
  points.sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let previous = 0;
  for (const point of points) {
    chunks.push(bytes.slice(previous, point));
    previous = point;
  }
  chunks.push(bytes.slice(previous));
  return chunks;
}

const cutsArb = fc.array(fc.nat(), { maxLength: 40 });
const splitModeArb = fc.constantFrom<SplitMode>('random', 'betweenCrLf', 'insideCharacters');
const lineEndsArb = fc.oneof(
  fc.constant<LineEnd[]>([]),
  fc.constantFrom<LineEnd[]>(['\n'], ['\r'], ['\r\n']),
  fc.array(fc.constantFrom<LineEnd>('\n', '\r', '\r\n'), { minLength: 1, maxLength: 8 }),
);

// ---------------------------------------------------------------------------------------------
// Text

/** Characters that stress the codecs; `\uD800` is a lone surrogate, which JSON escapes. */
const TRICKY = [
  '你',
  '好',
  '世',
  '界',
  '。',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\0',
  '\uFEFF',
];
const JSON_ONLY = ['"', '\\', '\uD800', '\uDFFF', '\u007F', '\u0085'];

/** Text of valid code points (no lone surrogates), for raw SSE fields that travel as UTF-8. */
function wireText(extra: readonly string[], maxLength: number): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { arbitrary: fc.constantFrom(...TRICKY, ' ', ':', ...extra), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 3 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 2 },
  );
  return fc.string({ unit, maxLength });
}

/** Text for JSON string values: anything a JS string may hold, including lone surrogates. */
const jsonText = fc.oneof(
  { arbitrary: wireText(JSON_ONLY, 24), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 1 },
);
const nonEmpty = jsonText.filter((text) => text.length > 0);
const timestamp = fc.integer({ min: 0, max: 2 ** 45 });
// `-0` would come back as `0` through JSON; the protocol's numbers are never negative anyway.
const duration = fc
  .double({ min: 0, max: 1e9, noNaN: true, noDefaultInfinity: true })
  .map((d) => Math.abs(d));

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; array: unknown[]; object: object }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      jsonText,
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
      fc.boolean(),
      fc.constant(null),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 3 }),
    object: fc.dictionary(fc.constantFrom('orderId', '订单号', 'a b', 'x', ''), tie('value'), {
      maxKeys: 3,
      noNullPrototype: true,
    }),
  }),
).value;

// ---------------------------------------------------------------------------------------------
// Run events (valid against RunEventSchema)

const errorInfo = fc.record({ code: nonEmpty, message: jsonText });
const logged = { runId: nonEmpty, seq: fc.integer({ min: 1, max: 2 ** 31 }), at: timestamp };
const textKind = fc.constantFrom('reasoning', 'answer', 'error');
const toolStatus = fc.constantFrom(...ToolBlockStatusSchema.options);
const confirmStatus = fc.constantFrom(...ConfirmBlockStatusSchema.options);
const pauseReason = fc.constantFrom('confirmation', 'tool_result');
const details = fc.array(fc.record({ label: jsonText, value: jsonText }), { maxLength: 3 });
const decision = fc.record(
  {
    decision: fc.constantFrom('approve', 'reject'),
    decidedAt: timestamp,
    reason: jsonText,
  },
  { requiredKeys: ['decision', 'decidedAt'] },
);
const pendingCall = fc.record(
  { toolCallId: nonEmpty, name: nonEmpty, args: jsonValue },
  { requiredKeys: ['toolCallId', 'name'] },
);
const timing = { startedAt: timestamp, endedAt: fc.option(timestamp), durationMs: fc.option(duration) };

const block: fc.Arbitrary<Block> = fc.oneof(
  fc.record({
    blockId: nonEmpty,
    kind: textKind,
    status: fc.constantFrom('streaming', 'done', 'cancelled', 'interrupted'),
    text: jsonText,
    ...timing,
  }),
  fc.record(
    {
      blockId: nonEmpty,
      kind: fc.constant('tool'),
      toolCallId: nonEmpty,
      name: nonEmpty,
      title: jsonText,
      status: toolStatus,
      argsText: jsonText,
      args: jsonValue,
      result: jsonValue,
      error: errorInfo,
      ...timing,
    },
    {
      requiredKeys: [
        'blockId',
        'kind',
        'toolCallId',
        'name',
        'title',
        'status',
        'argsText',
        'startedAt',
        'endedAt',
        'durationMs',
      ],
    },
  ),
  fc.record(
    {
      blockId: nonEmpty,
      kind: fc.constant('confirm'),
      toolCallId: nonEmpty,
      title: jsonText,
      description: jsonText,
      details,
      status: confirmStatus,
      decision,
      ...timing,
    },
    {
      requiredKeys: [
        'blockId',
        'kind',
        'toolCallId',
        'title',
        'description',
        'details',
        'status',
        'startedAt',
        'endedAt',
        'durationMs',
      ],
    },
  ),
);

const tokenUsage = fc.record(
  {
    inputTokens: fc.nat(),
    outputTokens: fc.nat(),
    reasoningTokens: fc.nat(),
    cachedInputTokens: fc.nat(),
  },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
);

const message: fc.Arbitrary<Message> = fc.record(
  {
    runId: fc.option(nonEmpty),
    conversationId: fc.option(nonEmpty),
    messageId: fc.option(nonEmpty),
    status: fc.constantFrom('idle', 'running', 'paused', 'completed', 'cancelled', 'failed', 'interrupted'),
    blocks: fc.array(block, { maxLength: 3 }),
    pause: fc.option(fc.record({ reason: pauseReason, pending: fc.array(pendingCall, { maxLength: 2 }) })),
    finishReason: fc.option(jsonText),
    error: fc.option(errorInfo),
    startedAt: fc.option(timestamp),
    endedAt: fc.option(timestamp),
    usage: fc.option(tokenUsage),
    lastSeq: fc.nat(),
  },
  {
    requiredKeys: [
      'runId',
      'conversationId',
      'messageId',
      'status',
      'blocks',
      'pause',
      'finishReason',
      'error',
      'startedAt',
      'endedAt',
      'usage',
      'lastSeq',
    ],
  },
);

const runEvent: fc.Arbitrary<RunEvent> = fc.oneof(
  {
    // Most of a real stream is deltas.
    weight: 6,
    arbitrary: fc.record({ type: fc.constant('block.delta'), ...logged, blockId: nonEmpty, text: jsonText }),
  },
  fc.record({ type: fc.constant('run.started'), ...logged, conversationId: nonEmpty, messageId: nonEmpty }),
  fc.record({ type: fc.constant('block.started'), ...logged, blockId: nonEmpty, kind: textKind }),
  fc.record(
    {
      type: fc.constant('block.started'),
      ...logged,
      blockId: nonEmpty,
      kind: fc.constant('tool'),
      toolCallId: nonEmpty,
      name: nonEmpty,
      title: jsonText,
      args: jsonValue,
    },
    { requiredKeys: ['type', 'runId', 'seq', 'at', 'blockId', 'kind', 'toolCallId', 'name', 'title'] },
  ),
  fc.record({
    type: fc.constant('block.started'),
    ...logged,
    blockId: nonEmpty,
    kind: fc.constant('confirm'),
    toolCallId: nonEmpty,
    title: jsonText,
    description: jsonText,
    details,
  }),
  fc.record(
    {
      type: fc.constant('block.updated'),
      ...logged,
      blockId: nonEmpty,
      kind: fc.constant('tool'),
      toolCallId: nonEmpty,
      status: toolStatus,
      args: jsonValue,
      result: jsonValue,
      error: errorInfo,
    },
    { requiredKeys: ['type', 'runId', 'seq', 'at', 'blockId', 'kind', 'toolCallId'] },
  ),
  fc.record(
    {
      type: fc.constant('block.updated'),
      ...logged,
      blockId: nonEmpty,
      kind: fc.constant('confirm'),
      status: confirmStatus,
      decision,
    },
    { requiredKeys: ['type', 'runId', 'seq', 'at', 'blockId', 'kind', 'status'] },
  ),
  fc.record(
    {
      type: fc.constant('block.ended'),
      ...logged,
      blockId: nonEmpty,
      endedAt: timestamp,
      durationMs: duration,
      // `streaming` is not a final status, so block.ended refuses it.
      status: fc.constantFrom('done', 'cancelled', 'interrupted'),
    },
    { requiredKeys: ['type', 'runId', 'seq', 'at', 'blockId', 'endedAt', 'durationMs'] },
  ),
  fc.record({ type: fc.constant('run.hint'), ...logged, code: nonEmpty, text: jsonText }),
  fc.record({ type: fc.constant('run.snapshot'), ...logged, message }),
  fc.record({
    type: fc.constant('run.paused'),
    ...logged,
    reason: pauseReason,
    pending: fc.array(pendingCall, { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    type: fc.constant('run.resumed'),
    ...logged,
    reason: pauseReason,
    toolCallIds: fc.array(nonEmpty, { maxLength: 2 }),
  }),
  fc.record(
    {
      type: fc.constant('step.finished'),
      ...logged,
      step: fc.integer({ min: 1, max: 50 }),
      finishReason: fc.constantFrom('stop', 'tool_calls', 'length', 'content_filter', 'other'),
      usage: tokenUsage,
    },
    { requiredKeys: ['type', 'runId', 'seq', 'at', 'step', 'finishReason'] },
  ),
  fc.record(
    {
      type: fc.constant('run.finished'),
      ...logged,
      status: fc.constantFrom('completed', 'cancelled', 'failed', 'interrupted'),
      reason: jsonText,
      error: errorInfo,
      usage: tokenUsage,
    },
    { requiredKeys: ['type', 'runId', 'seq', 'at', 'status'] },
  ),
  fc.record({ type: fc.constant('done'), runId: nonEmpty, at: timestamp }),
);

const runEvents = fc.array(runEvent, { minLength: 1, maxLength: 12 });

// ---------------------------------------------------------------------------------------------
// Properties over run events

interface DecodedRun {
  events: RunEvent[];
  retries: number[];
  comments: string[];
}

async function decodeRun(format: 'sse' | 'ndjson', chunks: readonly Uint8Array[]): Promise<DecodedRun> {
  const retries: number[] = [];
  const comments: string[] = [];
  const decoder = createRunEventDecoderStream(format, {
    onRetry: (ms) => retries.push(ms),
    onComment: (text) => comments.push(text),
    onUnknownEvent: (type) => {
      throw new Error(`unexpected unknown event ${type}`);
    },
  });
  const events = await collect(fromChunks(chunks).pipeThrough(decoder));
  return { events, retries, comments };
}

describe('run event codecs: any chunking decodes to the events encoded', () => {
  it('the event arbitrary produces events valid against RunEventSchema, unchanged by parsing', () => {
    fc.assert(
      fc.property(runEvents, (events) => {
        for (const event of events) expect(RunEventSchema.parse(event)).toEqual(event);
      }),
      PROPERTY_OPTIONS,
    );
  });

  it('SSE (retry on the first frame, : ping comments, any line ends, any split)', async () => {
    await fc.assert(
      fc.asyncProperty(
        runEvents,
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.nat({ max: 60_000 }),
        lineEndsArb,
        cutsArb,
        splitModeArb,
        async (events, pings, retry, lineEnds, cuts, mode) => {
          let text = '';
          events.forEach((event, index) => {
            if (pings[index] === true) text += encodeSseFrame({ comment: 'ping' });
            text += encodeRunEventSse(event, index === 0 ? { retry } : {});
          });
          const bytes = utf8(withLineEnds(text, lineEnds));
          const decoded = await decodeRun('sse', split(bytes, cuts, mode));
          expect(decoded.events).toEqual(events);
          expect(decoded.retries).toEqual([retry]);
          expect(decoded.comments).toEqual(
            pings
              .slice(0, events.length)
              .filter(Boolean)
              .map(() => 'ping'),
          );
          expect(await decodeRun('sse', [bytes])).toEqual(decoded);
        },
      ),
      PROPERTY_OPTIONS,
    );
  });

  it('NDJSON (LF or CRLF line ends, blank lines, any split)', async () => {
    await fc.assert(
      fc.asyncProperty(
        runEvents,
        fc.array(fc.constantFrom('', '', '\n', '\r\n'), { minLength: 12, maxLength: 12 }),
        fc.array(fc.constantFrom<LineEnd>('\n', '\r\n'), { maxLength: 4 }),
        cutsArb,
        splitModeArb,
        async (events, blankLines, lineEnds, cuts, mode) => {
          let text = '';
          events.forEach((event, index) => {
            text += `${blankLines[index] ?? ''}${encodeRunEventNdjson(event)}`;
          });
          const bytes = utf8(withLineEnds(text, lineEnds));
          const decoded = await decodeRun('ndjson', split(bytes, cuts, mode));
          expect(decoded.events).toEqual(events);
          expect(await decodeRun('ndjson', [bytes])).toEqual(decoded);
        },
      ),
      PROPERTY_OPTIONS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Property over raw SSE frames

/** Event names: no CR or LF (NUL is allowed in an event name). */
const eventName = wireText([], 12).filter((text) => !/[\r\n]/.test(text));
/** Ids: no CR, LF or NUL. */
const frameId = wireText([], 12).filter((text) => !/[\r\n\0]/.test(text));

const sseFrame: fc.Arbitrary<SseFrame> = fc.record(
  {
    event: eventName,
    data: wireText([], 32),
    id: frameId,
    retry: fc.nat({ max: 2 ** 31 }),
    comment: wireText([], 12),
  },
  { requiredKeys: [] },
);

interface DecodedSse {
  messages: SseMessage[];
  retries: number[];
  comments: string[];
}

async function decodeSse(chunks: readonly Uint8Array[]): Promise<DecodedSse> {
  const retries: number[] = [];
  const comments: string[] = [];
  const decoder = new SseDecoderStream({
    onRetry: (ms) => retries.push(ms),
    onComment: (text) => comments.push(text),
  });
  const messages = await collect(fromChunks(chunks).pipeThrough(decoder));
  return { messages, retries, comments };
}

/** What the WHATWG rules say a reader gets from these frames. */
function expectedFromFrames(frames: readonly SseFrame[]): DecodedSse {
  const messages: SseMessage[] = [];
  const retries: number[] = [];
  const comments: string[] = [];
  let lastEventId = '';
  for (const frame of frames) {
    if (frame.comment !== undefined) comments.push(...frame.comment.split(/\r\n|\r|\n/));
    if (frame.retry !== undefined) retries.push(frame.retry);
    if (frame.id !== undefined) lastEventId = frame.id;
    if (frame.data !== undefined) {
      messages.push({
        event: frame.event === undefined || frame.event === '' ? 'message' : frame.event,
        data: frame.data.replace(/\r\n|\r/g, '\n'),
        lastEventId,
      });
    }
  }
  return { messages, retries, comments };
}

describe('SseDecoderStream: any chunking of encoded frames', () => {
  it('decodes like the whole buffer, and to the frames’ data with CR and CRLF normalised to LF', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sseFrame, { maxLength: 10 }),
        lineEndsArb,
        cutsArb,
        splitModeArb,
        async (frames, lineEnds, cuts, mode) => {
          const bytes = utf8(withLineEnds(frames.map(encodeSseFrame).join(''), lineEnds));
          const whole = await decodeSse([bytes]);
          expect(whole).toEqual(expectedFromFrames(frames));
          expect(await decodeSse(split(bytes, cuts, mode))).toEqual(whole);
        },
      ),
      PROPERTY_OPTIONS,
    );
  });
});

describe('the direct SSE encoding of run events', () => {
  it('writes exactly the bytes of the general SSE frame encoder, for every event and for done', () => {
    fc.assert(
      fc.property(arbitraryRunEvents({ maxSteps: 30 }), (events) => {
        const all: RunEvent[] = [...events, { type: 'done', runId: 'run_prop', at: 1 }];
        for (const event of all) expect(encodeRunEventSse(event)).toBe(encodeSseFrame(toSseFrame(event)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the field-by-field JSON of a delta', () => {
  it('is JSON.stringify exactly, for any text, ids and numbers, in log order or not', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'grapheme' }),
        fc.string(),
        fc.oneof(fc.nat(), fc.double()),
        fc.oneof(fc.nat(), fc.double()),
        fc.constantFrom('log order', 'other order', 'extra key', 'inherited key'),
        (text, blockId, runId, seq, at, shape) => {
          const inLogOrder = { type: 'block.delta', blockId, text, runId, seq, at };
          const event = (
            shape === 'log order'
              ? inLogOrder
              : shape === 'other order'
                ? { type: 'block.delta', runId, seq, at, blockId, text }
                : shape === 'extra key'
                  ? { ...inLogOrder, traceId: runId }
                  : // JSON.stringify ignores inherited keys; the field-by-field path must too.
                    Object.assign(Object.create({ inherited: 1 }) as object, inLogOrder)
          ) as RunEvent;
          const json = JSON.stringify(event);
          expect(encodeRunEventNdjson(event)).toBe(`${json}\n`);
          expect(encodeRunEventSse(event)).toBe(encodeSseFrame(toSseFrame(event)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
