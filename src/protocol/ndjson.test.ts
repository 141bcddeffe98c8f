import { describe, expect, it } from 'vitest';
import { NdjsonDecoderStream } from './ndjson-decoder-stream.ts';
import { encodeNdjsonLine, NdjsonEncoderStream } from './ndjson-encoder-stream.ts';
import { ProtocolError } from './protocol-error.ts';
import { collect, fromChunks, utf8 } from './test-support/streams.ts';

/** Decodes chunks (strings are sent as UTF-8 bytes) into parsed values. */
function decode(chunks: readonly (string | Uint8Array)[], maxLineChars?: number): Promise<unknown[]> {
  const input = chunks.map((chunk) => (typeof chunk === 'string' ? utf8(chunk) : chunk));
  const decoder = new NdjsonDecoderStream(maxLineChars === undefined ? {} : { maxLineChars });
  return collect(fromChunks(input).pipeThrough(decoder));
}

function failure(chunks: readonly (string | Uint8Array)[], maxLineChars?: number): Promise<unknown> {
  return decode(chunks, maxLineChars).then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectProtocolError(error: unknown, code: ProtocolError['code'], message: string): void {
  expect(error).toBeInstanceOf(ProtocolError);
  expect((error as ProtocolError).code).toBe(code);
  expect((error as Error).message).toBe(message);
}

const values: unknown[] = [
  { type: 'block.delta', text: '你好\n世界\r\n😀' },
  'a string with \u2028 and \u0000',
  42,
  null,
  true,
  [1, 'two', { three: 3 }],
  { nested: { empty: '', list: [] } },
];

describe('NdjsonEncoderStream', () => {
  it('writes one JSON document per line, LF-terminated, line breaks in strings escaped', async () => {
    const chunks = await collect(
      fromChunks<unknown>([{ a: 1 }, 'x\ny', [1]]).pipeThrough(new NdjsonEncoderStream()),
    );
    expect(chunks).toEqual([utf8('{"a":1}\n'), utf8('"x\\ny"\n'), utf8('[1]\n')]);
  });

  it('writes non-ASCII text as UTF-8 bytes', async () => {
    const chunks = await collect(fromChunks<unknown>(['你']).pipeThrough(new NdjsonEncoderStream()));
    expect(chunks).toEqual([Uint8Array.of(0x22, 0xe4, 0xbd, 0xa0, 0x22, 0x0a)]);
  });

  it('encodeNdjsonLine gives the same text as the stream', () => {
    expect(encodeNdjsonLine({ text: 'a\r\nb' })).toBe('{"text":"a\\r\\nb"}\n');
  });
});

describe('NdjsonDecoderStream', () => {
  it('round-trips values through the encoder and decoder', async () => {
    const decoded = await collect(
      fromChunks(values).pipeThrough(new NdjsonEncoderStream()).pipeThrough(new NdjsonDecoderStream()),
    );
    expect(decoded).toEqual(values);
  });

  it('tolerates CRLF line ends, including a CR and LF split across chunks', async () => {
    expect(await decode(['{"a":1}\r\n{"b":2}\r\n'])).toEqual([{ a: 1 }, { b: 2 }]);
    expect(await decode(['{"a":1}\r', '\n{"b":2}\r', '\n'])).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('does not treat a bare CR as a line end (NDJSON lines end with LF or CRLF)', async () => {
    expectProtocolError(
      await failure(['{"a":1}\r{"b":2}\n']),
      'invalid_json',
      'NDJSON line 1 is not valid JSON',
    );
  });

  it('skips blank and whitespace-only lines', async () => {
    expect(await decode(['\n{"a":1}\n\n  \n\t\r\n\r\n{"b":2}\n\n'])).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('errors with invalid_json naming the line number (blank lines count, across chunks)', async () => {
    const error = await failure(['{"a":1}\n', '\n{oo', 'ps}\n{"b":2}\n']);
    expectProtocolError(error, 'invalid_json', 'NDJSON line 3 is not valid JSON');
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('discards an unterminated last line, even when it would parse', async () => {
    expect(await decode(['{"a":1}\n{"b":2}'])).toEqual([{ a: 1 }]);
    // `12` is a prefix of `123`: parsing it would invent a value the peer never sent.
    expect(await decode(['123\n12'])).toEqual([123]);
    expect(await decode(['{"a":1}\n{"b":'])).toEqual([{ a: 1 }]);
  });

  it('decodes multi-byte characters split at every position across two chunks', async () => {
    const whole = utf8('{"t":"你😀"}\n["好"]\n');
    for (let cut = 0; cut <= whole.length; cut += 1) {
      expect(await decode([whole.subarray(0, cut), whole.subarray(cut)])).toEqual([{ t: '你😀' }, ['好']]);
    }
  });

  it('decodes a 4-byte emoji split across three chunks', async () => {
    // 😀 = F0 9F 98 80
    expect(
      await decode(['"x', Uint8Array.of(0xf0), Uint8Array.of(0x9f, 0x98), Uint8Array.of(0x80), '"\n']),
    ).toEqual(['x😀']);
  });

  it('skips a leading UTF-8 BOM', async () => {
    expect(await decode([Uint8Array.of(0xef, 0xbb, 0xbf), '{"a":1}\n'])).toEqual([{ a: 1 }]);
  });

  it('accepts string chunks', async () => {
    const decoded = await collect(fromChunks(['{"a":', '1}\n"你"\n']).pipeThrough(new NdjsonDecoderStream()));
    expect(decoded).toEqual([{ a: 1 }, '你']);
  });

  it('errors with ndjson_line_too_long when an unfinished line exceeds maxLineChars', async () => {
    expectProtocolError(
      await failure(['{"a":"0123', '456789"}\n'], 5),
      'ndjson_line_too_long',
      'an NDJSON line exceeded 5 characters',
    );
  });

  it('errors with ndjson_line_too_long when a line grows past maxLineChars over several chunks', async () => {
    const error = await failure(['{"a":"', '0123', '4567', '89"}\n'], 12);
    expect((error as ProtocolError).code).toBe('ndjson_line_too_long');
  });

  it('accepts lines up to maxLineChars while unfinished', async () => {
    expect(await decode(['{"a":"0123', '456789"}\n'], 10)).toEqual([{ a: '0123456789' }]);
  });
});
