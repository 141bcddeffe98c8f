import { ProtocolError } from './protocol-error.ts';

export interface NdjsonDecoderOptions {
  /** Upper bound on characters held for one unfinished line. Default 8 MiB. */
  maxLineChars?: number;
}

/**
 * Bytes (or text) in, one parsed JSON value per line out. Accepts LF and CRLF line ends and skips
 * blank lines. A line that is not JSON errors the stream with a `ProtocolError` naming the line.
 * An unterminated last line is discarded at the end of the stream: the encoder always ends records
 * with `\n`, so a missing one means the connection was cut mid-record, and a truncated record can
 * still be valid JSON (`12` cut from `123`).
 */
export class NdjsonDecoderStream<T = unknown> extends TransformStream<Uint8Array | string, T> {
  constructor(options: NdjsonDecoderOptions = {}) {
    const maxLineChars = options.maxLineChars ?? 8 * 1024 * 1024;
    const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
    let pending = '';
    let lineNumber = 0;
    super({
      transform(chunk, controller) {
        pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
        let start = 0;
        for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
          lineNumber += 1;
          const line = pending.slice(start, pending.charCodeAt(end - 1) === 0x0d ? end - 1 : end);
          start = end + 1;
          if (line.trim().length === 0) continue;
          try {
            controller.enqueue(JSON.parse(line) as T);
          } catch (error) {
            throw new ProtocolError('invalid_json', `NDJSON line ${lineNumber} is not valid JSON`, {
              cause: error,
            });
          }
        }
        pending = pending.slice(start);
        if (pending.length > maxLineChars) {
          throw new ProtocolError(
            'ndjson_line_too_long',
            `an NDJSON line exceeded ${maxLineChars} characters`,
          );
        }
      },
      flush() {
        decoder.decode();
        pending = '';
      },
    });
  }
}
