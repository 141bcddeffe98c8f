import { describe, expect, it } from 'vitest';
import { ProtocolError } from './protocol-error.ts';
import {
  type SseDecoderOptions,
  SseDecoderStream,
  SseLineParser,
  type SseMessage,
} from './sse-decoder-stream.ts';
import { collect, fromChunks, utf8 } from './test-support/streams.ts';

/**
 * One test per WHATWG event-stream parsing rule (HTML § 9.2.6). Input is given as bytes unless the
 * test is about string input, because the decoder's real input is a `fetch` body.
 */

interface Decoded {
  messages: SseMessage[];
  retries: number[];
  comments: string[];
}

/** Decodes chunks (strings are sent as UTF-8 bytes, one chunk each) and records every callback. */
async function decode(
  chunks: readonly (string | Uint8Array)[],
  options: Omit<SseDecoderOptions, 'onRetry' | 'onComment'> = {},
): Promise<Decoded> {
  const retries: number[] = [];
  const comments: string[] = [];
  const decoder = new SseDecoderStream({
    ...options,
    onRetry: (ms) => retries.push(ms),
    onComment: (text) => comments.push(text),
  });
  const input = chunks.map((chunk) => (typeof chunk === 'string' ? utf8(chunk) : chunk));
  const messages = await collect(fromChunks(input).pipeThrough(decoder));
  return { messages, retries, comments };
}

async function messagesOf(...chunks: (string | Uint8Array)[]): Promise<SseMessage[]> {
  return (await decode(chunks)).messages;
}

const message = (data: string, event = 'message', lastEventId = ''): SseMessage => ({
  event,
  data,
  lastEventId,
});

describe('SseDecoderStream: line ends', () => {
  it('accepts LF line ends', async () => {
    expect(await messagesOf('data: a\n\ndata: b\n\n')).toEqual([message('a'), message('b')]);
  });

  it('accepts CR line ends', async () => {
    expect(await messagesOf('data: a\r\rdata: b\r\r')).toEqual([message('a'), message('b')]);
  });

  it('accepts CRLF line ends', async () => {
    expect(await messagesOf('data: a\r\n\r\ndata: b\r\n\r\n')).toEqual([message('a'), message('b')]);
  });

  it('accepts mixed line ends in one stream', async () => {
    // Lines: `event: x` CRLF, `data: a` CR, `data: b` LF, `` CRLF, `data: c` CRLF, `` LF.
    expect(await messagesOf('event: x\r\ndata: a\rdata: b\n\r\ndata: c\r\n\n')).toEqual([
      message('a\nb', 'x'),
      message('c'),
    ]);
  });

  it('counts LF CR as two line ends (an LF is never the first half of a pair)', async () => {
    expect(await messagesOf('data: a\n\rdata: b\n\n')).toEqual([message('a'), message('b')]);
  });
});

describe('SseDecoderStream: byte order mark', () => {
  it('skips one leading BOM', async () => {
    expect(await messagesOf(Uint8Array.of(0xef, 0xbb, 0xbf), 'data: a\n\n')).toEqual([message('a')]);
  });

  it('skips a leading BOM split across chunks', async () => {
    expect(
      await messagesOf(Uint8Array.of(0xef), Uint8Array.of(0xbb), Uint8Array.of(0xbf, 0x64), 'ata: a\n\n'),
    ).toEqual([message('a')]);
  });

  it('skips only one BOM: a second one is part of the first line (here an unknown field)', async () => {
    // The line is `\uFEFFdata: a`, whose field name `\uFEFFdata` is not `data`.
    expect(await messagesOf('\uFEFF\uFEFFdata: a\n\ndata: b\n\n')).toEqual([message('b')]);
  });

  it('skips a BOM only at the start of the stream, not at the start of a later chunk or frame', async () => {
    expect(await messagesOf('data: a', '\uFEFFb\n\n\uFEFFdata: c\n\ndata: d\n\n')).toEqual([
      message('a\uFEFFb'),
      message('d'),
    ]);
  });

  it('applies the same BOM rule to string input', async () => {
    const decoder = new SseDecoderStream();
    const messages = await collect(
      fromChunks(['\uFEFFdata: a\n\n', '\uFEFFdata: b\n\n']).pipeThrough(decoder),
    );
    expect(messages).toEqual([message('a')]);
  });
});

describe('SseDecoderStream: fields', () => {
  it('reads data: with or without the space, stripping only one space', async () => {
    expect(await messagesOf('data:a\n\ndata: a\n\ndata:  a\n\ndata:\ta\n\ndata: \n\n')).toEqual([
      message('a'),
      message('a'),
      message(' a'),
      message('\ta'),
      message(''),
    ]);
  });

  it('strips one space from other fields too (event, id)', async () => {
    expect(await messagesOf('event:x\nid:1\ndata: a\n\nevent:  y\nid:  2\ndata: b\n\n')).toEqual([
      message('a', 'x', '1'),
      message('b', ' y', ' 2'),
    ]);
  });

  it('joins several data: lines with LF, keeping empty ones', async () => {
    expect(await messagesOf('data: a\ndata:\ndata: b\n\ndata: c\ndata:\n\n')).toEqual([
      message('a\n\nb'),
      message('c\n'),
    ]);
  });

  it('treats lines starting with a colon as comments, reported to onComment', async () => {
    const decoded = await decode([': ping\n\n:no-space\ndata: a\n:  two spaces\n\n:\n\n']);
    expect(decoded.messages).toEqual([message('a')]);
    expect(decoded.comments).toEqual(['ping', 'no-space', ' two spaces', '']);
  });

  it('treats a comment containing a colon as one comment', async () => {
    const decoded = await decode([': a: b\n\n']);
    expect(decoded.comments).toEqual(['a: b']);
    expect(decoded.messages).toEqual([]);
  });

  it('treats a line without a colon as a field with an empty value', async () => {
    expect(await messagesOf('data\n\ndata\ndata\n\nevent\ndata: x\n\nid: 4\nid\ndata: y\n\n')).toEqual([
      message(''),
      message('\n'),
      message('x'),
      message('y', 'message', ''),
    ]);
  });

  it('ignores unknown fields (names are case-sensitive and include any spaces)', async () => {
    expect(await messagesOf('foo: bar\nDATA: no\ndata : no\n data: no\nEvent: no\ndata: a\n\n')).toEqual([
      message('a'),
    ]);
  });

  it('applies retry: only when the value is all ASCII digits', async () => {
    const decoded = await decode([
      'retry: 3000\nretry: 10a\nretry: -1\nretry: 1.5\nretry:\nretry:  5\nretry: ５\nretry:0\nretry:007\n\n',
    ]);
    expect(decoded.retries).toEqual([3000, 0, 7]);
    // retry alone never dispatches a message.
    expect(decoded.messages).toEqual([]);
  });

  it('ignores an id containing NUL, keeping the previous id', async () => {
    expect(await messagesOf('id: 1\ndata: a\n\nid: 2\u0000x\ndata: b\n\n')).toEqual([
      message('a', 'message', '1'),
      message('b', 'message', '1'),
    ]);
  });

  it('keeps the last event id across later frames without id, until an id: line changes it', async () => {
    expect(
      await messagesOf('id: 7\ndata: a\n\ndata: b\n\nid: 8\ndata: c\n\ndata: d\n\nid\ndata: e\n\n'),
    ).toEqual([
      message('a', 'message', '7'),
      message('b', 'message', '7'),
      message('c', 'message', '8'),
      message('d', 'message', '8'),
      message('e', 'message', ''),
    ]);
  });

  it('lets the last id: line of a frame win', async () => {
    expect(await messagesOf('id: 1\nid: 2\ndata: a\n\n')).toEqual([message('a', 'message', '2')]);
  });
});

describe('SseDecoderStream: dispatch', () => {
  it('dispatches only at a blank line', () => {
    const parser = new SseLineParser();
    expect(parser.push('event: x\n')).toEqual([]);
    expect(parser.push('data: a\n')).toEqual([]);
    expect(parser.push('data: b\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([message('a\nb', 'x')]);
    expect(parser.push('data: c\n\ndata: d\n')).toEqual([message('c')]);
    expect(parser.push('\n')).toEqual([message('d')]);
  });

  it('does not dispatch a frame without data, but an id:-only frame updates the last event id', async () => {
    // The `event: x` of the data-less frame must not leak into the next message either.
    expect(await messagesOf('event: x\nid: 5\n\nretry: 1\n\n: c\n\ndata: a\n\n')).toEqual([
      message('a', 'message', '5'),
    ]);
  });

  it('defaults the event type to message and resets it after each dispatch', async () => {
    expect(
      await messagesOf('event: x\ndata: a\n\ndata: b\n\nevent:\ndata: c\n\nevent: y\nevent: z\ndata: d\n\n'),
    ).toEqual([message('a', 'x'), message('b'), message('c'), message('d', 'z')]);
  });

  it('discards a partial frame at the end of the stream', async () => {
    expect(await messagesOf('data: a\n\ndata: b\n')).toEqual([message('a')]);
    expect(await messagesOf('data: a\n\ndata: b')).toEqual([message('a')]);
    expect(await messagesOf('data: a\n\nid: 9\nevent: x\ndata: b\n')).toEqual([message('a')]);
  });

  it('discards a partial frame ending in half a UTF-8 character, without error', async () => {
    const whole = utf8('data: a\n\ndata: 你');
    expect(await messagesOf(whole.subarray(0, whole.length - 1))).toEqual([message('a')]);
  });
});

describe('SseDecoderStream: chunk boundaries', () => {
  it('decodes a 3-byte character split over two chunks', async () => {
    // 你 = E4 BD A0
    expect(
      await messagesOf(
        Uint8Array.of(0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xe4, 0xbd),
        Uint8Array.of(0xa0, 0x0a, 0x0a),
      ),
    ).toEqual([message('你')]);
  });

  it('decodes a 4-byte emoji split across three chunks', async () => {
    // 😀 = F0 9F 98 80
    expect(
      await messagesOf(
        'data: x',
        Uint8Array.of(0xf0),
        Uint8Array.of(0x9f, 0x98),
        Uint8Array.of(0x80, 0x0a, 0x0a),
      ),
    ).toEqual([message('x😀')]);
  });

  it('decodes every two-chunk split of a frame with Chinese, emoji and CRLF identically', async () => {
    const whole = utf8('event: 事件\r\nid: 编号1\r\ndata: 你好😀\r\ndata: 世界\r\n\r\n');
    for (let cut = 0; cut <= whole.length; cut += 1) {
      expect(await messagesOf(whole.subarray(0, cut), whole.subarray(cut))).toEqual([
        message('你好😀\n世界', '事件', '编号1'),
      ]);
    }
  });

  it('counts CR at the end of one chunk and LF at the start of the next as ONE line end', async () => {
    // Two line ends here would make a blank line and dispatch `a` on its own.
    expect(await messagesOf('data: a\r', '\ndata: b\r', '\n\r', '\n')).toEqual([message('a\nb')]);
  });

  it('still pairs CR and LF when an empty chunk comes between them', async () => {
    expect(await messagesOf('data: a\r', new Uint8Array(0), '\ndata: b\r\n\r\n')).toEqual([message('a\nb')]);
  });

  it('does not swallow a CR that follows a chunk ending in CR', async () => {
    expect(await messagesOf('data: a\r', '\rdata: b\r\r')).toEqual([message('a'), message('b')]);
  });

  it('does not swallow an LF that follows a chunk ending in something else', async () => {
    expect(await messagesOf('data: a\n', '\ndata: b\n', '\n')).toEqual([message('a'), message('b')]);
  });
});

describe('SseDecoderStream: limits', () => {
  async function failure(chunks: string[], maxBufferedChars: number): Promise<unknown> {
    return decode(chunks, { maxBufferedChars }).then(
      () => undefined,
      (error: unknown) => error,
    );
  }

  it('errors with sse_frame_too_long when an unfinished line exceeds maxBufferedChars', async () => {
    const error = await failure(['data: 0123456789'], 15);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe('sse_frame_too_long');
    expect((error as Error).message).toBe('an SSE frame exceeded 15 characters');
  });

  it('errors with sse_frame_too_long when the data of an unfinished frame exceeds maxBufferedChars', async () => {
    const error = await failure(['data: 0123456789\n', 'data: 0123456789\n'], 16);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe('sse_frame_too_long');
  });

  it('accepts any number of frames that each stay within maxBufferedChars', async () => {
    const decoded = await decode(['data: 0123456789\n\n'.repeat(10), 'data: 0123456789\n\n'], {
      maxBufferedChars: 16,
    });
    expect(decoded.messages).toHaveLength(11);
    expect(decoded.messages.every((m) => m.data === '0123456789')).toBe(true);
  });
});
