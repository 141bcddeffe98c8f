import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { campaignSize } from '../shared/test-support/campaign-size.ts';
import { ProtocolError } from './protocol-error.ts';
import { RunEventSchema } from './run-event.ts';
import { createRunEventDecoderStream, encodeRunEventNdjson, encodeRunEventSse } from './run-event-codec.ts';
import { seedCancelOrderEvents } from './test-support/index.ts';
import { collect, fromChunks } from './test-support/streams.ts';

/**
 * Hostile input for the run-event decoders (issue #13 §3): 100,000 inputs in all, none of them
 * trusted: raw bytes, lines built from the protocol's own pieces, and valid streams with bytes
 * flipped, dropped and inserted, each cut into chunks anywhere (inside characters too). Whatever
 * comes in, a decoder either yields events that satisfy the schema or fails with a ProtocolError
 * (what the client turns into a typed error); it never throws anything else and never hangs.
 * `npm test` tries 1,000 of them (the same generators, the first of the same seeds); `npm run
 * test:campaigns` the 100,000 (campaign-size.ts).
 */
const RUNS_PER_FORMAT = campaignSize({ quick: 500, full: 50_000 });

const encoder = new TextEncoder();
const SEED = seedCancelOrderEvents();
const VALID = {
  sse: encoder.encode(`retry: 1000\n\n${SEED.map((event) => encodeRunEventSse(event)).join('')}`),
  ndjson: encoder.encode(SEED.map((event) => encodeRunEventNdjson(event)).join('')),
};

/** Pieces of the two wire formats, so random lines often look nearly right, where bugs live. */
const PIECES = [
  'data: ',
  'data:',
  'event: ',
  'event: run.started',
  'event: block.delta',
  'id: ',
  'id: 7',
  'id: \u0000',
  'retry: ',
  'retry: 99999999999999999999',
  ': ping',
  '\n',
  '\r\n',
  '\r',
  '\n\n',
  '{',
  '}',
  '[',
  ']',
  'null',
  '"type":',
  '"run.started"',
  '"block.delta"',
  '"run.finished"',
  '"seq":',
  '-1',
  '1e309',
  '"blockId":"blk_1"',
  '"text":"\\ud800"',
  ',',
  '"__proto__":{"polluted":true}',
  '\ufeff',
  '\u2028',
];

const line = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8, unit: 'binary' }) },
  ),
  { maxLength: 24 },
);

/** A valid stream with a few bytes flipped, dropped or inserted. */
const mutated = (valid: Uint8Array) =>
  fc
    .array(
      fc.record({
        at: fc.nat(),
        kind: fc.constantFrom('flip', 'drop', 'insert'),
        byte: fc.integer({ min: 0, max: 255 }),
      }),
      { minLength: 1, maxLength: 6 },
    )
    .map((edits) => {
      const bytes = [...valid];
      for (const edit of edits) {
        const at = edit.at % (bytes.length + 1);
        if (edit.kind === 'insert') bytes.splice(at, 0, edit.byte);
        else if (at < bytes.length) {
          if (edit.kind === 'drop') bytes.splice(at, 1);
          else bytes[at] = (bytes[at] ?? 0) ^ (edit.byte || 1);
        }
      }
      return Uint8Array.from(bytes);
    });

const inputOf = (format: 'sse' | 'ndjson') =>
  fc.oneof(
    fc.uint8Array({ maxLength: 256 }),
    line.map((pieces) => encoder.encode(pieces.join(''))),
    mutated(VALID[format]),
  );

/** Cuts bytes at the given offsets (modulo length + 1; repeats give empty chunks). */
function cut(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...cuts.map((point) => point % (bytes.length + 1)), bytes.length].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

describe.each(['sse', 'ndjson'] as const)('the %s decoder on hostile input', (format) => {
  it(`yields schema-valid events or a ProtocolError, and nothing else, on ${RUNS_PER_FORMAT.toLocaleString('en')} inputs`, async () => {
    const outcomes = { events: 0, protocolErrors: 0 };
    await fc.assert(
      fc.asyncProperty(inputOf(format), fc.array(fc.nat(), { maxLength: 6 }), async (bytes, cuts) => {
        try {
          const events = await collect(
            fromChunks(cut(bytes, cuts)).pipeThrough(createRunEventDecoderStream(format)),
          );
          for (const event of events) expect(RunEventSchema.safeParse(event).success).toBe(true);
          outcomes.events += events.length;
        } catch (error) {
          if (!(error instanceof ProtocolError)) throw error;
          outcomes.protocolErrors += 1;
        }
      }),
      { numRuns: RUNS_PER_FORMAT, seed: format === 'sse' ? 1301 : 1302 },
    );
    // The inputs reach both outcomes: a fuzzer that only ever failed at the first byte, or never
    // failed, would prove little: both come in more than one input of fifty.
    expect(outcomes.events).toBeGreaterThan(RUNS_PER_FORMAT / 50);
    expect(outcomes.protocolErrors).toBeGreaterThan(RUNS_PER_FORMAT / 50);
  }, 120_000);
});
