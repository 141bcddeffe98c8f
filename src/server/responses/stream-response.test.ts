import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoggedRunEvent } from '../../protocol/index.ts';
import { RunLog } from '../../runtime/index.ts';
import { ResponsesEventMapper, type ResponsesStreamEvent } from './responses-event-mapper.ts';
import { encodeResponsesEvent, responseObjectOf, streamResponse } from './stream-response.ts';
import { AFTER_PAUSE, CONTEXT, UNTIL_PAUSE } from './test-support/responses-fixture.ts';

/** The body of a stream, without the SSE prelude (`retry:`) that is not a Responses event. */
async function bodyOf(response: Response): Promise<string> {
  return (await response.text()).replace(/^retry: \d+\n\n/, '');
}

describe('a Responses stream', () => {
  for (const capacity of [1, 4, 10_000])
    for (const ndjson of [false, true])
      it(`is the mapper's events, whole and from every sequence number (ring of ${capacity}, ${ndjson ? 'NDJSON' : 'SSE'})`, async () => {
        const log = new RunLog('run_1', { capacity });
        const accept = ndjson ? 'application/x-ndjson' : 'text/event-stream';
        // The face begins with the run, as when a POST starts it; its deltas are made when read, and
        // kept once a small ring lets them go.
        const first = log.append(UNTIL_PAUSE[0] as Parameters<RunLog['append']>[0]);
        streamResponse(log, CONTEXT, { afterSequence: -1 }, accept).body?.cancel();
        // The Response object comes from the SSE face's fold: begun with the run too, as the server's
        // POST does.
        responseObjectOf(log, CONTEXT);
        const events: LoggedRunEvent[] = [first];
        for (const draft of [...UNTIL_PAUSE.slice(1), ...AFTER_PAUSE]) events.push(log.append(draft));
        const reference = new ResponsesEventMapper(CONTEXT);
        const expected = events.flatMap((event) => reference.push(event));
        const encoded = expected.map((event) => encodeResponsesEvent(event, ndjson));
        expect(await bodyOf(streamResponse(log, CONTEXT, { afterSequence: -1 }, accept))).toBe(
          encoded.join(''),
        );
        for (let after = 0; after < expected.length - 1; after += 1)
          expect(await bodyOf(streamResponse(log, CONTEXT, { afterSequence: after }, accept))).toBe(
            encoded.slice(after + 1).join(''),
          );
        // Everything read: nothing more will come.
        expect(streamResponse(log, CONTEXT, { afterSequence: expected.length - 1 }, accept).status).toBe(204);
        expect(responseObjectOf(log, CONTEXT)).toEqual(reference.response());
      });
});

describe('the field-by-field JSON of a Responses text delta', () => {
  it('is JSON.stringify exactly, whatever the fields, their order, extra or inherited keys', () => {
    const number = fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER + 2));
    fc.assert(
      fc.property(
        number,
        fc.string({ unit: 'grapheme' }),
        number,
        fc.oneof(fc.constant(0), number),
        fc.string({ unit: 'binary' }),
        fc.oneof(fc.constant([]), fc.constant([{ token: 'a' }]), fc.constant(null)),
        fc.constantFrom('mapper order', 'other order', 'extra key', 'inherited key', 'other type'),
        fc.boolean(),
        (sequence_number, item_id, output_index, content_index, delta, logprobs, shape, ndjson) => {
          const type =
            shape === 'other type' ? 'response.reasoning_text.delta' : 'response.output_text.delta';
          const inOrder = { type, sequence_number, item_id, output_index, content_index, delta, logprobs };
          const event = (
            shape === 'other order'
              ? { type, item_id, sequence_number, output_index, content_index, delta, logprobs }
              : shape === 'extra key'
                ? { ...inOrder, obfuscation: 'x' }
                : shape === 'inherited key'
                  ? Object.assign(Object.create({ inherited: 1 }) as object, inOrder)
                  : inOrder
          ) as ResponsesStreamEvent;
          const json = JSON.stringify(event);
          expect(encodeResponsesEvent(event, ndjson)).toBe(
            ndjson ? `${json}\n` : `id: ${event.sequence_number}\nevent: ${type}\ndata: ${json}\n\n`,
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
