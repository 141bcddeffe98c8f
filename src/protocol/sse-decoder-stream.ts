import { ProtocolError } from './protocol-error.ts';

/** One dispatched SSE message, as the WHATWG event-stream rules define it. */
export interface SseMessage {
  /** The `event:` field, or `message` when the frame had none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event ID in force when this message was dispatched (ids persist across frames). */
  lastEventId: string;
}

export interface SseDecoderOptions {
  /** Called when a `retry:` field with only ASCII digits arrives. */
  onRetry?: (milliseconds: number) => void;
  /** Called for each comment line (`: ping` heartbeats), without the colon and one leading space. */
  onComment?: (text: string) => void;
  /**
   * Upper bound on characters held for one unfinished line or frame. A peer that never ends a frame
   * would otherwise grow memory without limit. Default 8 MiB.
   */
  maxBufferedChars?: number;
}

const ASCII_DIGITS = /^[0-9]+$/;

/**
 * A streaming parser for `text/event-stream` that follows the WHATWG HTML parsing rules:
 * - UTF-8 decoding across chunk boundaries; one leading BOM is skipped;
 * - lines end with CRLF, LF or CR, including a CR at the end of one chunk and an LF at the start of
 *   the next;
 * - `field: value` with at most one space stripped; a line without a colon is a field with an empty
 *   value; lines starting with `:` are comments; unknown fields are ignored;
 * - `data` lines are joined with `\n`; `id` containing NUL is ignored; `retry` only when all digits;
 * - a message is dispatched only at a blank line, and not at all when no `data` line was seen;
 * - whatever is unfinished when the stream ends is discarded.
 */
export class SseLineParser {
  readonly #options: SseDecoderOptions;
  readonly #maxBufferedChars: number;
  #pendingLine = '';
  #skipLeadingLineFeed = false;
  #bomChecked = false;
  #data = '';
  #hasData = false;
  #eventType = '';
  #idBuffer = '';
  #lastEventId = '';

  constructor(options: SseDecoderOptions = {}) {
    this.#options = options;
    this.#maxBufferedChars = options.maxBufferedChars ?? 8 * 1024 * 1024;
  }

  /** Feed decoded text; returns the messages completed by it. */
  push(text: string): SseMessage[] {
    const messages: SseMessage[] = [];
    let chunk = text;
    if (!this.#bomChecked && chunk.length > 0) {
      this.#bomChecked = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    if (this.#skipLeadingLineFeed && chunk.length > 0) {
      this.#skipLeadingLineFeed = false;
      if (chunk.charCodeAt(0) === 0x0a) chunk = chunk.slice(1);
    }
    let position = 0;
    // A regex per call: a callback that feeds another parser must not move this one's lastIndex.
    const lineEnd = /\r\n|\r|\n/g;
    for (let match = lineEnd.exec(chunk); match !== null; match = lineEnd.exec(chunk)) {
      const line = this.#pendingLine + chunk.slice(position, match.index);
      this.#pendingLine = '';
      position = match.index + match[0].length;
      // A CR that ends the chunk may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && position === chunk.length) this.#skipLeadingLineFeed = true;
      this.#processLine(line, messages);
    }
    if (position < chunk.length) this.#pendingLine += chunk.slice(position);
    if (this.#pendingLine.length + this.#data.length > this.#maxBufferedChars) {
      throw new ProtocolError(
        'sse_frame_too_long',
        `an SSE frame exceeded ${this.#maxBufferedChars} characters`,
      );
    }
    return messages;
  }

  /** The end of the stream: an unfinished line or frame is discarded, as the rules require. */
  end(): void {
    this.#pendingLine = '';
    this.#data = '';
    this.#hasData = false;
    this.#eventType = '';
  }

  #processLine(line: string, messages: SseMessage[]): void {
    if (line.length === 0) {
      this.#dispatch(messages);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      const comment = line.charCodeAt(1) === 0x20 ? line.slice(2) : line.slice(1);
      this.#options.onComment?.(comment);
      return;
    }
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'event':
        this.#eventType = value;
        break;
      case 'data':
        this.#data = this.#hasData ? `${this.#data}\n${value}` : value;
        this.#hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.#idBuffer = value;
        break;
      case 'retry':
        if (ASCII_DIGITS.test(value)) this.#options.onRetry?.(Number.parseInt(value, 10));
        break;
      default:
      // Unknown fields are ignored by the rules, so a newer server can add fields safely.
    }
  }

  #dispatch(messages: SseMessage[]): void {
    this.#lastEventId = this.#idBuffer;
    if (!this.#hasData) {
      this.#eventType = '';
      return;
    }
    messages.push({ event: this.#eventType || 'message', data: this.#data, lastEventId: this.#lastEventId });
    this.#data = '';
    this.#hasData = false;
    this.#eventType = '';
  }
}

/** Bytes (or already decoded text) in, dispatched `SseMessage`s out. */
export class SseDecoderStream extends TransformStream<Uint8Array | string, SseMessage> {
  constructor(options: SseDecoderOptions = {}) {
    // ignoreBOM keeps the BOM in the text so the parser applies the same rule to string input.
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    const parser = new SseLineParser(options);
    super({
      transform(chunk, controller) {
        const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
        for (const message of parser.push(text)) controller.enqueue(message);
      },
      flush() {
        // Any bytes of an unfinished character belong to the unfinished frame, discarded with it.
        decoder.decode();
        parser.end();
      },
    });
  }
}
