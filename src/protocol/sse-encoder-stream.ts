import { ProtocolError } from './protocol-error.ts';

/** One SSE frame to write. Every field is optional; a frame with only `comment` is a heartbeat. */
export interface SseFrame {
  event?: string;
  data?: string;
  id?: string;
  /** Reconnection time in milliseconds for the reader. */
  retry?: number;
  comment?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one frame as SSE text, ending with the blank line that dispatches it. Multi-line `data`
 * becomes several `data:` lines (the reader joins them with `\n`). `event` and `id` cannot carry line
 * breaks (they would end the field early and corrupt the stream), and `id` cannot carry NUL (readers
 * ignore such an id), so both are refused rather than silently altered.
 */
export function encodeSseFrame(frame: SseFrame): string {
  let text = '';
  if (frame.comment !== undefined) {
    for (const line of frame.comment.split(LINE_BREAK)) text += `: ${line}\n`;
  }
  if (frame.retry !== undefined) {
    // A safe integer, because `String(1e21)` is `1e+21`, which readers ignore (not all digits).
    if (!Number.isSafeInteger(frame.retry) || frame.retry < 0) {
      throw new ProtocolError(
        'invalid_sse_field',
        `retry must be a non-negative safe integer, got ${frame.retry}`,
      );
    }
    text += `retry: ${frame.retry}\n`;
  }
  if (frame.id !== undefined) {
    if (/[\r\n\0]/.test(frame.id)) {
      throw new ProtocolError('invalid_sse_field', 'an SSE id cannot contain CR, LF or NUL');
    }
    text += `id: ${frame.id}\n`;
  }
  if (frame.event !== undefined) {
    if (/[\r\n]/.test(frame.event)) {
      throw new ProtocolError('invalid_sse_field', 'an SSE event name cannot contain CR or LF');
    }
    text += `event: ${frame.event}\n`;
  }
  if (frame.data !== undefined) {
    for (const line of frame.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  }
  return `${text}\n`;
}

/**
 * `SseFrame` objects in, UTF-8 bytes out. An invalid frame errors the stream with a `ProtocolError`
 * instead of writing bytes a reader would misparse.
 */
export class SseEncoderStream extends TransformStream<SseFrame, Uint8Array> {
  constructor() {
    const encoder = new TextEncoder();
    super({
      transform(frame, controller) {
        controller.enqueue(encoder.encode(encodeSseFrame(frame)));
      },
    });
  }
}
