/**
 * Values in, one JSON document per line out (`application/x-ndjson`). `JSON.stringify` escapes line
 * breaks inside strings, so a line break always ends a record.
 */
export class NdjsonEncoderStream<T = unknown> extends TransformStream<T, Uint8Array> {
  constructor() {
    const encoder = new TextEncoder();
    super({
      transform(value, controller) {
        controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
      },
    });
  }
}

export function encodeNdjsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
