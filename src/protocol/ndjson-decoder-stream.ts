import { ProtocolError } from './protocol-error.ts';

export interface NdjsonDecoderOptions {
  /** Upper bound on characters held for one unfinished line. Default 8 MiB. */
  maxLineChars?: number;
}

/**
 * Splits decoded text into NDJSON records. Accepts LF and CRLF line ends, skips blank lines and one
 * leading BOM. A line that is not JSON throws a `ProtocolError` naming the line. An unterminated
 * last line is discarded by `end()`: the encoder always ends records with `\n`, so a missing one
 * means the connection was cut mid-record, and a truncated record can still be valid JSON (`12`
 * cut from `123`).
 */
export class NdjsonLineParser {
  readonly #maxLineChars: number;
  #pending = '';
  #lineNumber = 0;
  #bomChecked = false;

  constructor(options: NdjsonDecoderOptions = {}) {
    this.#maxLineChars = options.maxLineChars ?? 8 * 1024 * 1024;
  }

  /** Feed decoded text; returns the values of the lines it completed. */
  push(text: string): unknown[] {
    let chunk = text;
    if (!this.#bomChecked && chunk.length > 0) {
      this.#bomChecked = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    const values: unknown[] = [];
    this.#pending += chunk;
    // `pending` held no LF before this chunk, so only a chunk with one can complete a line.
    // Rescanning (and flattening) all of `pending` for every chunk made a long line quadratic.
    if (chunk.includes('\n')) {
      const pending = this.#pending;
      let start = 0;
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
        this.#lineNumber += 1;
        const line = pending.slice(start, pending.charCodeAt(end - 1) === 0x0d ? end - 1 : end);
        start = end + 1;
        if (line.trim().length === 0) continue;
        try {
          values.push(JSON.parse(line));
        } catch (error) {
          throw new ProtocolError('invalid_json', `NDJSON line ${this.#lineNumber} is not valid JSON`, {
            cause: error,
          });
        }
      }
      this.#pending = pending.slice(start);
    }
    if (this.#pending.length > this.#maxLineChars) {
      throw new ProtocolError(
        'ndjson_line_too_long',
        `an NDJSON line exceeded ${this.#maxLineChars} characters`,
      );
    }
    return values;
  }

  /** The end of the stream: an unterminated last line is discarded. */
  end(): void {
    this.#pending = '';
  }
}

/** Bytes (or text) in, one parsed JSON value per line out; see `NdjsonLineParser` for the rules. */
export class NdjsonDecoderStream<T = unknown> extends TransformStream<Uint8Array | string, T> {
  constructor(options: NdjsonDecoderOptions = {}) {
    // ignoreBOM keeps the BOM in the text so the parser applies the same rule to string input.
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    const parser = new NdjsonLineParser(options);
    super({
      transform(chunk, controller) {
        const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
        for (const value of parser.push(text)) controller.enqueue(value as T);
      },
      flush() {
        decoder.decode();
        parser.end();
      },
    });
  }
}
