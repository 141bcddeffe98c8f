/**
 * `npm run bench:protocol`: encode and decode throughput of the run protocol for SSE and NDJSON, and
 * of `reduce`, on one realistic run, and the model adapter's parsing of a provider's streamed answer
 * (SSE bytes → `ChatStreamPart`s), each next to a hand-written baseline measured in the same
 * process. Absolute numbers depend on the machine; the ratios are the point, because baseline and
 * contender share the machine, the process and the moment.
 *
 * Not a test: it asserts correctness once (so it cannot time a broken pipeline) and then only times.
 */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ChatStreamPart } from '../src/models/chat-model.ts';
import { OpenAiTurnReader } from '../src/models/openai-turn-reader.ts';
import {
  createMessageState,
  createRunEventDecoderStream,
  encodeRunEventSse,
  isTextBlock,
  type LoggedRunEvent,
  type MessageState,
  type RunEvent,
  RunEventEncoderStream,
  reduce,
  SseDecoderStream,
  type WireFormat,
} from '../src/protocol/index.ts';
import { createOpenAiCompatibleStream } from './openai-compatible-stream.ts';
import { createRealisticRun } from './realistic-run.ts';

const EVENT_COUNT = 20_000;
/** Chunks of the provider's streamed answer the adapter parses: a long thinking-mode turn with a tool call. */
const PROVIDER_CHUNK_COUNT = 2_000;
/** Only named in the reader's error messages; nothing is requested. */
const PROVIDER_ENDPOINT = 'https://api.deepseek.com/chat/completions';
/**
 * Untimed rounds first, so the JIT has compiled the hot paths before anything is timed. `verify()`
 * has already run every pipeline once, so one more round is enough.
 */
const WARM_UP_ROUNDS = 1;
/**
 * Odd, so the median is one measured repetition rather than an average of two; 7 keeps the whole run
 * under a minute on 2 busy cores.
 */
const TIMED_ROUNDS = 7;
/**
 * The provider stream takes a few milliseconds per parse, where a scheduler hiccup is a large share:
 * more rounds for its group (still under a second in all), warm-up included, so its JIT has settled.
 */
const PROVIDER_ROUNDS = { warmUp: 5, timed: 31 } as const;
/** A TCP segment's worth of payload on a 1,500-byte MTU: what a reader sees on a slow or busy link. */
const SMALL_CHUNK_BYTES = 1_400;
/** A typical read size when the socket has data buffered: fewer, larger chunks. */
const LARGE_CHUNK_BYTES = 16 * 1024;
/** Backpressure window of the benchmark's event source, as a producer honouring `desiredSize` would. */
const SOURCE_HIGH_WATER_MARK = 64;

// ---------------------------------------------------------------------------------------------------
// Workload

const run = createRealisticRun({ eventCount: EVENT_COUNT });
const events: readonly LoggedRunEvent[] = run.events;
const textEncoder = new TextEncoder();

/** The baseline SSE frame: what a hand-rolled server writes, field order as `encodeSseFrame` writes it. */
function baselineSseFrame(event: LoggedRunEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function concatenate(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Network reads: views into the wire bytes, cut at fixed sizes regardless of frames or characters. */
function splitIntoChunks(bytes: Uint8Array, chunkBytes: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes) {
    chunks.push(bytes.subarray(offset, offset + chunkBytes));
  }
  return chunks;
}

/** How many cuts land inside a multi-byte UTF-8 character (the next byte is a continuation byte). */
function countSplitCharacters(chunks: readonly Uint8Array[]): number {
  let count = 0;
  for (const chunk of chunks.slice(1)) {
    const firstByte = chunk[0];
    if (firstByte !== undefined && (firstByte & 0xc0) === 0x80) count += 1;
  }
  return count;
}

const sseBytes = concatenate(events.map((event) => textEncoder.encode(baselineSseFrame(event))));
const ndjsonBytes = concatenate(events.map((event) => textEncoder.encode(`${JSON.stringify(event)}\n`)));
/** The decode baseline's input: the JSON of each event, as if framing had already been done for free. */
const preSplitLines = events.map((event) => JSON.stringify(event));
const chunkSizes = [SMALL_CHUNK_BYTES, LARGE_CHUNK_BYTES] as const;
const wireChunks: Record<WireFormat, Map<number, Uint8Array[]>> = {
  sse: new Map(chunkSizes.map((size) => [size, splitIntoChunks(sseBytes, size)])),
  ndjson: new Map(chunkSizes.map((size) => [size, splitIntoChunks(ndjsonBytes, size)])),
};

/** The provider's answer as the adapter reads it from the socket: 1,400-byte reads of the body. */
const providerStream = createOpenAiCompatibleStream({ chunkCount: PROVIDER_CHUNK_COUNT });
const providerChunks = splitIntoChunks(providerStream.bytes, SMALL_CHUNK_BYTES);

function chunksOf(format: WireFormat, chunkBytes: number): Uint8Array[] {
  const chunks = wireChunks[format].get(chunkBytes);
  if (chunks === undefined) throw new Error(`no ${chunkBytes}-byte chunks of ${format}`);
  return chunks;
}

// ---------------------------------------------------------------------------------------------------
// Stream plumbing shared by the pipelines under test

/** A pull source that fills up to its high-water mark per pull: backpressure-respecting, not a firehose. */
function readableFrom<T>(items: readonly T[]): ReadableStream<T> {
  let index = 0;
  return new ReadableStream<T>(
    {
      pull(controller) {
        while ((controller.desiredSize ?? 0) > 0) {
          if (index >= items.length) {
            controller.close();
            return;
          }
          controller.enqueue(items[index] as T);
          index += 1;
        }
      },
    },
    new CountQueuingStrategy({ highWaterMark: SOURCE_HIGH_WATER_MARK }),
  );
}

/** Drains a byte stream, returning the byte count (consumed, so the work cannot be optimised away). */
async function countBytes(readable: ReadableStream<Uint8Array>): Promise<number> {
  const reader = readable.getReader();
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return total;
    total += value.byteLength;
  }
}

async function collect<T>(readable: ReadableStream<T>): Promise<T[]> {
  const reader = readable.getReader();
  const items: T[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return items;
    items.push(value);
  }
}

/** Drains an event stream; returns the last `seq` seen, which the caller checks against the run. */
async function lastSeqOf(readable: ReadableStream<RunEvent>): Promise<number> {
  const reader = readable.getReader();
  let lastSeq = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return lastSeq;
    if (value.type !== 'done') lastSeq = value.seq;
  }
}

function decoderPipeline(
  format: WireFormat,
  chunkBytes: number,
  validate: boolean,
): ReadableStream<RunEvent> {
  const decoder = createRunEventDecoderStream(format, validate ? {} : { validate: false });
  return readableFrom(chunksOf(format, chunkBytes)).pipeThrough(decoder);
}

/**
 * The OpenAI-compatible adapter's read path without the HTTP and timers around it: SSE messages
 * from the body into the adapter's own `OpenAiTurnReader` (what `streamModelRequest` runs per
 * message), or, for the framing-only case, the same messages through `JSON.parse` alone. Returns
 * the number of chunks parsed; `parts`, when given, receives every part.
 */
async function parseProviderStream(withChunkParser: boolean, parts?: ChatStreamPart[]): Promise<number> {
  const reader = readableFrom(providerChunks).pipeThrough(new SseDecoderStream()).getReader();
  const turn = new OpenAiTurnReader(PROVIDER_ENDPOINT);
  let chunkCount = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the provider stream ended without [DONE]');
    const data = value.data.trim();
    if (data === '[DONE]') {
      if (withChunkParser) {
        turn.read(value);
        const closing = turn.end();
        parts?.push(...closing);
      }
      return chunkCount;
    }
    if (data === '') continue;
    if (withChunkParser) {
      const chunkParts = turn.read(value);
      parts?.push(...chunkParts);
    } else JSON.parse(data);
    chunkCount += 1;
  }
}

// ---------------------------------------------------------------------------------------------------
// Correctness, once, before any timing

async function verify(): Promise<void> {
  // Encoders: the pipeline must write exactly the bytes the baselines write, or the comparison is moot.
  const sseFromStream = concatenate(
    await collect(readableFrom<RunEvent>(events).pipeThrough(new RunEventEncoderStream('sse'))),
  );
  deepStrictEqual(sseFromStream, sseBytes, 'RunEventEncoderStream(sse) bytes differ from the baseline');
  const sseFromFunction = concatenate(events.map((event) => textEncoder.encode(encodeRunEventSse(event))));
  deepStrictEqual(sseFromFunction, sseBytes, 'encodeRunEventSse bytes differ from the baseline');
  const ndjsonFromStream = concatenate(
    await collect(readableFrom<RunEvent>(events).pipeThrough(new RunEventEncoderStream('ndjson'))),
  );
  deepStrictEqual(
    ndjsonFromStream,
    ndjsonBytes,
    'RunEventEncoderStream(ndjson) bytes differ from the baseline',
  );

  // Decoders: every chunking and validation setting must give back the original events, in order.
  for (const format of ['sse', 'ndjson'] as const) {
    for (const chunkBytes of chunkSizes) {
      for (const validate of [true, false]) {
        const decoded = await collect(decoderPipeline(format, chunkBytes, validate));
        strictEqual(decoded.length, events.length, `${format} ${chunkBytes} validate=${validate}: count`);
        deepStrictEqual(decoded, events, `${format} ${chunkBytes} validate=${validate}: events differ`);
      }
    }
  }
  deepStrictEqual(
    preSplitLines.map((line) => JSON.parse(line) as unknown),
    events,
    'baseline JSON.parse differs',
  );

  // Reducer: the whole run applies cleanly and the answer holds every delta's text.
  const state = reduceAll();
  deepStrictEqual(state.anomalies, [], 'reduce reported anomalies');
  strictEqual(state.status, 'completed');
  strictEqual(state.lastSeq, events.length);
  strictEqual(state.blocks.length, run.blockCount);
  const answer = state.blocks.find((block) => block.blockId === run.answerBlockId);
  strictEqual(answer !== undefined && isTextBlock(answer) ? answer.text : undefined, run.answerText);

  await verifyProviderParse();
}

/** The adapter path must read the whole turn back, or timing it says nothing. */
async function verifyProviderParse(): Promise<void> {
  const { expected, dataLines } = providerStream;
  const parts: ChatStreamPart[] = [];
  strictEqual(await parseProviderStream(true, parts), dataLines.length, 'adapter parse: chunk count');
  strictEqual(await parseProviderStream(false), dataLines.length, 'framing only: chunk count');
  const textOf = (type: 'reasoning-delta' | 'text-delta') =>
    parts.map((part) => (part.type === type ? part.text : '')).join('');
  strictEqual(textOf('reasoning-delta'), expected.reasoningText, 'adapter parse: reasoning text');
  strictEqual(textOf('text-delta'), expected.answerText, 'adapter parse: answer text');
  const starts = parts.filter((part) => part.type === 'tool-call-start');
  deepStrictEqual(
    starts.map((part) => [part.id, part.name]),
    [[expected.toolCall.id, expected.toolCall.name]],
    'adapter parse: tool call start',
  );
  const ends = parts.filter((part) => part.type === 'tool-call-end');
  deepStrictEqual(
    ends.map((part) => part.arguments),
    [expected.toolCall.arguments],
    'adapter parse: tool call arguments',
  );
  const finish = parts.at(-1);
  if (finish?.type !== 'finish') throw new Error('adapter parse: the last part is not finish');
  strictEqual(finish.reason, expected.finishReason, 'adapter parse: finish reason');
  strictEqual(finish.usage?.inputTokens, expected.inputTokens, 'adapter parse: input tokens');
  strictEqual(finish.usage?.outputTokens, expected.outputTokens, 'adapter parse: output tokens');
}

function reduceAll(): MessageState {
  let state = createMessageState();
  for (const event of events) state = reduce(state, event);
  return state;
}

// ---------------------------------------------------------------------------------------------------
// Cases

interface BenchCase {
  name: string;
  /** Wire bytes the case moves, for MB/s: the same stream bytes for a contender and its baseline. */
  wireBytes: number | null;
  /** What `run` must return every time: a byte count or the last `seq`, so a broken run cannot pass. */
  expected: number;
  run: () => number | Promise<number>;
}

interface BenchGroup {
  title: string;
  /** What the group counts per second, and how many of them one run of a case handles. */
  unit: { name: 'event' | 'chunk'; count: number };
  /** Rounds when not the defaults (`WARM_UP_ROUNDS`, `TIMED_ROUNDS`). */
  rounds?: { warmUp: number; timed: number };
  baseline: BenchCase | null;
  contenders: BenchCase[];
}

const EVENT_UNIT = { name: 'event', count: events.length } as const;

function encodeGroup(format: WireFormat): BenchGroup {
  const wireBytes = format === 'sse' ? sseBytes.byteLength : ndjsonBytes.byteLength;
  const frame = format === 'sse' ? baselineSseFrame : (event: LoggedRunEvent) => `${JSON.stringify(event)}\n`;
  const contenders: BenchCase[] = [];
  if (format === 'sse') {
    contenders.push({
      name: 'encodeRunEventSse + TextEncoder',
      wireBytes,
      expected: wireBytes,
      run: () => {
        let total = 0;
        for (const event of events) total += textEncoder.encode(encodeRunEventSse(event)).byteLength;
        return total;
      },
    });
  }
  if (format === 'sse') {
    // Not a codec: the same bytes, already encoded, through an identity TransformStream. What is left
    // of the pipeline's time above this floor is encoding; the floor itself is per-chunk stream cost.
    const preEncodedFrames = events.map((event) => textEncoder.encode(baselineSseFrame(event)));
    contenders.push({
      name: 'floor: pre-encoded frames through an identity TransformStream',
      wireBytes,
      expected: wireBytes,
      run: () =>
        countBytes(readableFrom(preEncodedFrames).pipeThrough(new TransformStream<Uint8Array, Uint8Array>())),
    });
  }
  contenders.push({
    name: `RunEventEncoderStream('${format}') pipeline`,
    wireBytes,
    expected: wireBytes,
    run: () => countBytes(readableFrom<RunEvent>(events).pipeThrough(new RunEventEncoderStream(format))),
  });
  return {
    title: `${format.toUpperCase()} encode (events → UTF-8 bytes, one chunk per event)`,
    unit: EVENT_UNIT,
    baseline: {
      name:
        format === 'sse'
          ? 'baseline: JSON.stringify + `id/event/data` concat + TextEncoder'
          : "baseline: JSON.stringify + '\\n' + TextEncoder",
      wireBytes,
      expected: wireBytes,
      run: () => {
        let total = 0;
        for (const event of events) total += textEncoder.encode(frame(event)).byteLength;
        return total;
      },
    },
    contenders,
  };
}

function decodeGroup(format: WireFormat): BenchGroup {
  const wireBytes = format === 'sse' ? sseBytes.byteLength : ndjsonBytes.byteLength;
  const expected = events.length;
  // Validation on and off at the small chunk size prices zod; the large chunk size (validation on, as
  // shipped) prices per-chunk overhead. The fourth combination adds little and a tenth of the run time.
  const settings = [
    { chunkBytes: SMALL_CHUNK_BYTES, validate: true },
    { chunkBytes: SMALL_CHUNK_BYTES, validate: false },
    { chunkBytes: LARGE_CHUNK_BYTES, validate: true },
  ];
  const contenders: BenchCase[] = [];
  for (const { chunkBytes, validate } of settings) {
    const chunkLabel =
      chunkBytes === LARGE_CHUNK_BYTES ? '16 KiB' : `${chunkBytes.toLocaleString('en-US')} B`;
    contenders.push({
      name: `createRunEventDecoderStream('${format}'), ${chunkLabel} chunks, ${validate ? 'validate' : 'validate: false'}`,
      wireBytes,
      expected,
      run: () => lastSeqOf(decoderPipeline(format, chunkBytes, validate)),
    });
  }
  return {
    title: `${format.toUpperCase()} decode (network chunks → run events)`,
    unit: EVENT_UNIT,
    baseline: {
      name: 'baseline: JSON.parse of pre-split lines (no framing, no validation)',
      wireBytes,
      expected,
      run: () => {
        let lastSeq = 0;
        for (const line of preSplitLines) lastSeq = (JSON.parse(line) as LoggedRunEvent).seq;
        return lastSeq;
      },
    },
    contenders,
  };
}

const reduceGroup: BenchGroup = {
  title: 'reduce (what the client does per event)',
  unit: EVENT_UNIT,
  baseline: null,
  contenders: [
    {
      name: 'reduce over all events from createMessageState()',
      wireBytes: null,
      expected: events.length,
      run: () => reduceAll().lastSeq,
    },
  ],
};

/**
 * The model adapter's side of a provider stream: not on the per-delta server path (bench:compare
 * covers that), but what every model turn pays before the runtime sees a part.
 */
function providerParseGroup(): BenchGroup {
  const wireBytes = providerStream.bytes.byteLength;
  const expected = providerStream.dataLines.length;
  return {
    title: `OpenAI-compatible stream parse (${integer.format(expected)}-chunk provider answer → ChatStreamParts)`,
    unit: { name: 'chunk', count: expected },
    rounds: PROVIDER_ROUNDS,
    baseline: {
      name: 'baseline: JSON.parse of the same data: lines, pre-split (no framing, no chunk parser)',
      wireBytes,
      expected,
      run: () => {
        let count = 0;
        for (const line of providerStream.dataLines) if (JSON.parse(line) !== null) count += 1;
        return count;
      },
    },
    contenders: [
      {
        name: 'SseDecoderStream + JSON.parse, 1,400 B chunks (framing only)',
        wireBytes,
        expected,
        run: () => parseProviderStream(false),
      },
      {
        name: 'SseDecoderStream + OpenAiTurnReader, 1,400 B chunks (the adapter)',
        wireBytes,
        expected,
        run: () => parseProviderStream(true),
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------
// Timing

interface Timing {
  benchCase: BenchCase;
  durationsMs: number[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  if (sorted.length % 2 === 1) return upper;
  return ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

async function runOnce(benchCase: BenchCase): Promise<number> {
  const started = performance.now();
  const result = await benchCase.run();
  const durationMs = performance.now() - started;
  if (result !== benchCase.expected) {
    throw new Error(`${benchCase.name} returned ${result}, expected ${benchCase.expected}`);
  }
  return durationMs;
}

/**
 * Round-robin within a group: one repetition of every case per round. Drift on a shared machine (a
 * neighbour's burst, thermal changes) then hits baseline and contenders alike instead of whichever
 * case happened to run during it.
 */
async function timeGroup(group: BenchGroup): Promise<Timing[]> {
  const cases = group.baseline === null ? group.contenders : [group.baseline, ...group.contenders];
  const timings = cases.map((benchCase): Timing => ({ benchCase, durationsMs: [] }));
  const { warmUp, timed } = group.rounds ?? { warmUp: WARM_UP_ROUNDS, timed: TIMED_ROUNDS };
  for (let round = 0; round < warmUp + timed; round += 1) {
    for (const timing of timings) {
      const durationMs = await runOnce(timing.benchCase);
      if (round >= warmUp) timing.durationsMs.push(durationMs);
    }
  }
  return timings;
}

// ---------------------------------------------------------------------------------------------------
// Report

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const COLUMNS = [
  { title: 'case', width: 84, align: 'left' },
  { title: 'events/s', width: 11, align: 'right' },
  { title: 'MB/s', width: 7, align: 'right' },
  { title: 'µs/event', width: 8, align: 'right' },
  { title: 'vs baseline', width: 14, align: 'right' },
  { title: 'median ms', width: 9, align: 'right' },
  { title: 'min–max ms', width: 13, align: 'right' },
] as const;

function row(cells: readonly string[]): string {
  return COLUMNS.map((column, index) => {
    const cell = cells[index] ?? '';
    return column.align === 'left' ? cell.padEnd(column.width) : cell.padStart(column.width);
  })
    .join('  ')
    .trimEnd();
}

/** The column titles, with the rate and per-item columns named after what the group counts. */
function headerFor(unitName: string): string {
  return row(
    COLUMNS.map((column) =>
      column.title.replace('events/s', `${unitName}s/s`).replace('µs/event', `µs/${unitName}`),
    ),
  );
}

function formatRow(
  timing: Timing,
  baselineMedianMs: number | null,
  isBaseline: boolean,
  unitCount: number,
): string {
  const medianMs = median(timing.durationsMs);
  const seconds = medianMs / 1_000;
  const { wireBytes } = timing.benchCase;
  let ratio = '—';
  if (isBaseline) ratio = 'baseline';
  // Same events and bytes in both, so the ratio of rates is the inverse ratio of median times.
  else if (baselineMedianMs !== null) ratio = `${twoDecimals.format(baselineMedianMs / medianMs)}× baseline`;
  return row([
    `${isBaseline ? '' : '  '}${timing.benchCase.name}`,
    integer.format(unitCount / seconds),
    wireBytes === null ? '—' : oneDecimal.format(wireBytes / 1e6 / seconds),
    twoDecimals.format((medianMs * 1_000) / unitCount),
    ratio,
    twoDecimals.format(medianMs),
    `${twoDecimals.format(Math.min(...timing.durationsMs))}–${twoDecimals.format(Math.max(...timing.durationsMs))}`,
  ]);
}

function describeWorkload(): string[] {
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  const mix = [...counts].map(([type, count]) => `${type} ${integer.format(count)}`).join(', ');
  const answerCharacters = Array.from(run.answerText).length;
  const lines = [
    `workload: ${integer.format(events.length)} events (${mix})`,
    `  answer: ${integer.format(run.answerDeltaCount)} deltas, ${integer.format(answerCharacters)} characters of Chinese text (2–8 per delta)`,
    `  SSE ${integer.format(sseBytes.byteLength)} B (${oneDecimal.format(sseBytes.byteLength / events.length)} B/event), NDJSON ${integer.format(ndjsonBytes.byteLength)} B (${oneDecimal.format(ndjsonBytes.byteLength / events.length)} B/event)`,
  ];
  for (const format of ['sse', 'ndjson'] as const) {
    for (const chunkBytes of chunkSizes) {
      const chunks = chunksOf(format, chunkBytes);
      lines.push(
        `  ${format} in ${integer.format(chunkBytes)}-byte chunks: ${integer.format(chunks.length)} chunks, ${integer.format(countSplitCharacters(chunks))} cuts inside a UTF-8 character`,
      );
    }
  }
  const providerMix = Object.entries(providerStream.mix)
    .map(([kind, count]) => `${kind} ${integer.format(count)}`)
    .join(', ');
  lines.push(
    `provider stream: ${integer.format(providerStream.dataLines.length)} chat.completion.chunk frames in DeepSeek's recorded shape (${providerMix}) + [DONE]`,
    `  ${integer.format(providerStream.bytes.byteLength)} B of SSE (${oneDecimal.format(providerStream.bytes.byteLength / providerStream.dataLines.length)} B/chunk), read as ${integer.format(providerChunks.length)} 1,400-byte reads, ${integer.format(countSplitCharacters(providerChunks))} cuts inside a UTF-8 character`,
  );
  return lines;
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  const cpus = os.cpus();
  console.log('runstream protocol benchmark');
  console.log(`node ${process.version} · ${cpus[0]?.model ?? 'unknown CPU'} · ${cpus.length} logical CPUs`);
  for (const line of describeWorkload()) console.log(line);

  await verify();
  console.log('verified: encoders match the baselines byte for byte; every decoder setting returns the');
  console.log('  original events (deep-equal, same count); reduce applies the run without anomalies; the');
  console.log(
    '  adapter path reads back the reasoning, the answer, the tool call, the finish reason and usage.',
  );
  console.log(
    `timing: median of ${TIMED_ROUNDS} timed repetitions after ${WARM_UP_ROUNDS} warm-up rounds (the provider stream: ${PROVIDER_ROUNDS.timed} after ${PROVIDER_ROUNDS.warmUp}), cases interleaved round-robin within each group`,
  );
  console.log('');

  const sseDecode = decodeGroup('sse');
  const ndjsonDecode = decodeGroup('ndjson');
  const groups = [
    encodeGroup('sse'),
    encodeGroup('ndjson'),
    sseDecode,
    ndjsonDecode,
    reduceGroup,
    providerParseGroup(),
  ];
  const baselineMedianMsByGroup = new Map<BenchGroup, number>();
  let headerUnit: string | undefined;
  for (const group of groups) {
    if (group.unit.name !== headerUnit) {
      headerUnit = group.unit.name;
      const header = headerFor(headerUnit);
      if (group !== groups[0]) console.log('');
      console.log(header);
      console.log('-'.repeat(header.length));
    }
    const timings = await timeGroup(group);
    console.log(group.title);
    const baselineTiming = group.baseline === null ? undefined : timings[0];
    const baselineMedianMs = baselineTiming === undefined ? null : median(baselineTiming.durationsMs);
    if (baselineMedianMs !== null) baselineMedianMsByGroup.set(group, baselineMedianMs);
    for (const timing of timings) {
      console.log(formatRow(timing, baselineMedianMs, timing === baselineTiming, group.unit.count));
    }
  }

  console.log('');
  console.log(
    'MB = 1e6 bytes of encoded wire bytes of that format (the same stream for a case and its baseline,',
  );
  console.log(
    '  so MB/s ratios equal events/s ratios). Decode baselines parse only the JSON lines: framing,',
  );
  console.log('  UTF-8 decoding across chunks, stream hand-offs and validation are what the ratio prices.');
  console.log(
    'The provider stream parse prices the same framing plus the chunk parser (schema check, tool-call',
  );
  console.log(
    '  assembly, usage) over JSON.parse of its data: lines; the adapter is not on the per-delta server path.',
  );
  console.log(
    'Ratios come from one run of this process on a shared, noisy machine: compare them within a run;',
  );
  console.log('  absolute rates vary from run to run and from machine to machine.');
  const sseDecodeBaselineMs = baselineMedianMsByGroup.get(sseDecode);
  const ndjsonDecodeBaselineMs = baselineMedianMsByGroup.get(ndjsonDecode);
  if (sseDecodeBaselineMs !== undefined && ndjsonDecodeBaselineMs !== undefined) {
    // Both decode baselines parse the very same lines, so any gap between them is noise, not code.
    const spread =
      Math.max(sseDecodeBaselineMs, ndjsonDecodeBaselineMs) /
      Math.min(sseDecodeBaselineMs, ndjsonDecodeBaselineMs);
    console.log(
      `Noise gauge: the two decode baselines do identical work; their medians differ by ${twoDecimals.format(spread)}×.`,
    );
  }
  console.log(`total time ${oneDecimal.format((performance.now() - startedAt) / 1_000)} s`);
}

await main();
