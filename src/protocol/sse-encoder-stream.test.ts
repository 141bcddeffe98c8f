import { describe, expect, it } from 'vitest';
import { ProtocolError } from './protocol-error.ts';
import type { RunEvent } from './run-event.ts';
import { encodeRunEventSse, toSseFrame } from './run-event-codec.ts';
import { encodeSseFrame, SseEncoderStream, type SseFrame } from './sse-encoder-stream.ts';
import { collect, fromChunks } from './test-support/streams.ts';

/** Runs `action` and returns what it threw, failing the test when it did not throw. */
function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

function expectProtocolError(error: unknown, code: ProtocolError['code']): void {
  expect(error).toBeInstanceOf(ProtocolError);
  expect((error as ProtocolError).code).toBe(code);
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('encodeSseFrame', () => {
  it('writes a data-only frame followed by the dispatching blank line', () => {
    expect(encodeSseFrame({ data: 'hello' })).toBe('data: hello\n\n');
  });

  it('writes comment, retry, id, event, data in that order', () => {
    const frame: SseFrame = { data: 'x', event: 'block.delta', id: '7', retry: 3000, comment: 'c' };
    expect(encodeSseFrame(frame)).toBe(': c\nretry: 3000\nid: 7\nevent: block.delta\ndata: x\n\n');
  });

  it('writes a comment-only frame as a heartbeat', () => {
    expect(encodeSseFrame({ comment: 'ping' })).toBe(': ping\n\n');
  });

  it('splits a multi-line comment into several comment lines', () => {
    expect(encodeSseFrame({ comment: 'a\nb\r\nc\rd' })).toBe(': a\n: b\n: c\n: d\n\n');
  });

  it('writes an empty frame as a lone blank line', () => {
    expect(encodeSseFrame({})).toBe('\n');
  });

  it('splits data on LF into several data: lines', () => {
    expect(encodeSseFrame({ data: 'a\nb' })).toBe('data: a\ndata: b\n\n');
  });

  it('splits data on CR into several data: lines', () => {
    expect(encodeSseFrame({ data: 'a\rb' })).toBe('data: a\ndata: b\n\n');
  });

  it('splits data on CRLF as one line break, not two', () => {
    expect(encodeSseFrame({ data: 'a\r\nb' })).toBe('data: a\ndata: b\n\n');
  });

  it('splits mixed line breaks, keeping empty lines between them', () => {
    // `\n\r` is LF then CR: two breaks, so an empty line sits between them.
    expect(encodeSseFrame({ data: 'a\r\n\nb\rc\n\rd' })).toBe(
      'data: a\ndata: \ndata: b\ndata: c\ndata: \ndata: d\n\n',
    );
  });

  it('keeps a trailing line break as a final empty data: line', () => {
    expect(encodeSseFrame({ data: 'a\n' })).toBe('data: a\ndata: \n\n');
  });

  it('writes empty data as one empty data: line (so the reader still dispatches)', () => {
    expect(encodeSseFrame({ data: '' })).toBe('data: \n\n');
  });

  it('keeps leading spaces of values (the reader strips only the one it added)', () => {
    expect(encodeSseFrame({ data: ' x', event: ' e', id: ' 1' })).toBe('id:  1\nevent:  e\ndata:  x\n\n');
  });

  it('writes an empty id (which resets the reader’s last event id)', () => {
    expect(encodeSseFrame({ id: '' })).toBe('id: \n\n');
  });

  it('writes retry 0', () => {
    expect(encodeSseFrame({ retry: 0 })).toBe('retry: 0\n\n');
  });

  it('passes non-ASCII text through unchanged', () => {
    expect(encodeSseFrame({ data: '你好😀', event: '事件' })).toBe('event: 事件\ndata: 你好😀\n\n');
  });

  it.each(['a\nb', 'a\rb', 'a\r\nb', '\n', 'trailing\r'])(
    'refuses an event name with a line break: %j',
    (event) => {
      const error = thrownBy(() => encodeSseFrame({ event, data: 'x' }));
      expectProtocolError(error, 'invalid_sse_field');
      expect((error as Error).message).toBe('an SSE event name cannot contain CR or LF');
    },
  );

  it.each(['1\n2', '1\r2', '1\r\n2', '\r', '1\u00002', '\0'])(
    'refuses an id with CR, LF or NUL: %j',
    (id) => {
      const error = thrownBy(() => encodeSseFrame({ id, data: 'x' }));
      expectProtocolError(error, 'invalid_sse_field');
      expect((error as Error).message).toBe('an SSE id cannot contain CR, LF or NUL');
    },
  );

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, -0.5, 2 ** 53, 1e21])(
    'refuses retry %s (not a non-negative integer a reader would accept)',
    (retry) => {
      const error = thrownBy(() => encodeSseFrame({ retry, data: 'x' }));
      expectProtocolError(error, 'invalid_sse_field');
    },
  );

  it('accepts the largest safe integer as retry and writes it as plain digits', () => {
    expect(encodeSseFrame({ retry: Number.MAX_SAFE_INTEGER })).toBe('retry: 9007199254740991\n\n');
  });
});

describe('SseEncoderStream', () => {
  it('writes each frame as one UTF-8 chunk, byte for byte', async () => {
    const chunks = await collect(
      fromChunks<SseFrame>([
        { retry: 1000, comment: 'hi' },
        { id: '1', event: 'e', data: '你\n😀' },
        {},
      ]).pipeThrough(new SseEncoderStream()),
    );
    expect(chunks).toEqual([
      bytes(': hi\nretry: 1000\n\n'),
      bytes('id: 1\nevent: e\ndata: 你\ndata: 😀\n\n'),
      bytes('\n'),
    ]);
    // 你 is E4 BD A0 and 😀 is F0 9F 98 80 in UTF-8: no BOM, no surrogate halves on the wire.
    const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));
    expect([...(chunks[1] ?? [])]).toEqual([
      ...ascii('id: 1\nevent: e\ndata: '),
      0xe4,
      0xbd,
      0xa0,
      ...ascii('\ndata: '),
      0xf0,
      0x9f,
      0x98,
      0x80,
      0x0a,
      0x0a,
    ]);
  });

  it('errors the stream with invalid_sse_field instead of writing a bad frame', async () => {
    const reading = collect(
      fromChunks<SseFrame>([{ data: 'ok' }, { event: 'bad\nname', data: 'x' }]).pipeThrough(
        new SseEncoderStream(),
      ),
    );
    const error = await reading.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expectProtocolError(error, 'invalid_sse_field');
  });
});

const delta: RunEvent = {
  type: 'block.delta',
  runId: 'run_1',
  seq: 3,
  at: 1700000000000,
  blockId: 'b1',
  text: '你好\n世界\r\n',
};
const done: RunEvent = { type: 'done', runId: 'run_1', at: 1700000000001 };

describe('encodeRunEventSse / toSseFrame', () => {
  it('writes id (the seq), event (the type) and the JSON as one data line', () => {
    expect(encodeRunEventSse(delta)).toBe(
      'id: 3\nevent: block.delta\ndata: {"type":"block.delta","runId":"run_1","seq":3,"at":1700000000000,' +
        '"blockId":"b1","text":"你好\\n世界\\r\\n"}\n\n',
    );
  });

  it('writes retry only when asked, before the id', () => {
    expect(encodeRunEventSse(delta, { retry: 2000 })).toBe(
      'retry: 2000\nid: 3\nevent: block.delta\ndata: {"type":"block.delta","runId":"run_1","seq":3,' +
        '"at":1700000000000,"blockId":"b1","text":"你好\\n世界\\r\\n"}\n\n',
    );
  });

  it('writes done without an id line', () => {
    expect(encodeRunEventSse(done)).toBe(
      'event: done\ndata: {"type":"done","runId":"run_1","at":1700000000001}\n\n',
    );
  });

  it('writes done with retry but still without an id line', () => {
    expect(encodeRunEventSse(done, { retry: 5 })).toBe(
      'retry: 5\nevent: done\ndata: {"type":"done","runId":"run_1","at":1700000000001}\n\n',
    );
  });

  it('builds frames with exactly the expected keys', () => {
    expect(toSseFrame(delta)).toStrictEqual({ event: 'block.delta', data: JSON.stringify(delta), id: '3' });
    expect(toSseFrame(done)).toStrictEqual({ event: 'done', data: JSON.stringify(done) });
    expect(toSseFrame(done, { retry: 9 })).toStrictEqual({
      event: 'done',
      data: JSON.stringify(done),
      retry: 9,
    });
    expect(toSseFrame(delta, {})).not.toHaveProperty('retry');
  });
});
