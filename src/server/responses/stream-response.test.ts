import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResponsesStreamEvent } from './responses-event-mapper.ts';
import { encodeResponsesEvent } from './stream-response.ts';

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
