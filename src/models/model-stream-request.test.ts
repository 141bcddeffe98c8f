import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { SseMessage } from '../protocol/index.ts';
import { type ChatStreamPart, ModelError } from './chat-model.ts';
import {
  type ModelStreamRequestOptions,
  streamModelRequest,
  type TurnStreamReader,
} from './model-stream-request.ts';
import {
  type FakeChatCompletionsServer,
  jsonResponse,
  type Responder,
  sse,
} from './test-support/fake-chat-completions-server.ts';
import { collect, collectFailure, fakeServerPerTest, modelError } from './test-support/openai-test-kit.ts';

const start = fakeServerPerTest();
const SECRET = 'sk-live-9c1f4e2a7b3d5f60';

/**
 * A toy protocol, so these tests pin the transport and nothing of OpenAI's: each `data:` is a text
 * delta, `event: done` completes the turn, `event: fail` is an error event (retryable when its data
 * says `retry`), `event: noop` carries nothing.
 */
class ToyReader implements TurnStreamReader {
  complete = false;
  ends = 0;

  read(message: SseMessage): ChatStreamPart[] {
    if (message.event === 'fail') {
      throw new ModelError('model_unavailable', `the server reported: ${message.data}`, {
        retryable: message.data === 'retry',
      });
    }
    if (message.event === 'done') {
      this.complete = true;
      return [];
    }
    if (message.event === 'noop') return [];
    if (message.event === 'defect') throw new TypeError('cannot read properties of undefined');
    return [{ type: 'text-delta', text: message.data }];
  }

  end(): ChatStreamPart[] {
    this.ends++;
    if (!this.complete) {
      throw new ModelError('model_stream_broken', 'the toy stream ended before done', { retryable: true });
    }
    return [{ type: 'finish', reason: 'stop' }];
  }
}

const text = (data: string) => `data: ${data}\n\n`;
const DONE = 'event: done\ndata: -\n\n';
const NOOP = 'event: noop\ndata: -\n\n';

function request(
  running: FakeChatCompletionsServer,
  options: Partial<ModelStreamRequestOptions> = {},
  signal?: AbortSignal,
) {
  const readers: ToyReader[] = [];
  const parts = streamModelRequest(
    {
      url: `${running.baseUrl}/toy`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
      secrets: [SECRET],
      maxRetries: 2,
      initialDelayMs: 5,
      maxDelayMs: 20_000,
      firstTokenTimeoutMs: 10_000,
      idleTimeoutMs: 10_000,
      random: () => 0,
      ...options,
    },
    '{"ask":"toy"}',
    signal,
    () => {
      const reader = new ToyReader();
      readers.push(reader);
      return reader;
    },
  );
  return { parts, readers };
}

/** Records when each request arrived, for the waits between them. */
function timed(arrivals: number[], responder: Responder): Responder {
  return (context) => {
    arrivals.push(performance.now());
    return responder(context);
  };
}

describe('streamModelRequest', () => {
  it('POSTs the body with the headers, yields the parts, and stops reading once the turn is complete', async () => {
    // The connection stays open after `done`: only the reader's `complete` ends the turn.
    const running = await start(sse([text('Hel'), text('lo'), DONE], { ending: 'hang' }));
    const { parts, readers } = request(running);
    expect(await collect(parts)).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'finish', reason: 'stop' },
    ]);
    const [sent] = running.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.body).toBe('{"ask":"toy"}');
    expect(sent?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(readers.map((reader) => reader.ends)).toEqual([1]);
    await sent?.closed;
  });

  it('retries before the first part with a fresh reader, never sooner than Retry-After, with the same body', async () => {
    const arrivals: number[] = [];
    const running = await start(
      timed(arrivals, jsonResponse(503, { error: { message: 'busy' } }, { 'retry-after-ms': '300' })),
      timed(arrivals, sse([text('OK'), DONE])),
    );
    const { parts, readers } = request(running);
    expect(await collect(parts)).toEqual([
      { type: 'text-delta', text: 'OK' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(running.requests).toHaveLength(2);
    expect(running.requests[1]?.body).toBe(running.requests[0]?.body);
    // No jitter and a 5 ms base: the wait is the server's.
    expect((arrivals[1] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(290);
    // The failed attempt never got as far as a reader's end.
    expect(readers.map((reader) => reader.ends)).toEqual([0, 1]);
  });

  it('fails at once when Retry-After asks for more than maxDelayMs', async () => {
    const running = await start(
      jsonResponse(429, { error: { message: 'Slow down' } }, { 'retry-after': '120' }),
    );
    const { error } = await collectFailure(request(running, { maxDelayMs: 1000 }).parts);
    expect(modelError(error).code).toBe('model_rate_limited');
    expect(modelError(error).message).toContain(
      'the server asked to wait 120 s, more than the 1000 ms allowed',
    );
    expect(running.requests).toHaveLength(1);
  });

  it('retries a body cut before the turn completed while nothing was delivered, then gives up with a note', async () => {
    // One cut at the socket, then bodies that end cleanly but without `done`.
    const running = await start(sse([NOOP], { ending: 'destroy' }), sse([NOOP]), sse([NOOP]));
    const { error } = await collectFailure(request(running).parts);
    const failure = modelError(error);
    expect(failure.code).toBe('model_stream_broken');
    expect(failure.retryable).toBe(true);
    expect(failure.message).toBe('the toy stream ended before done (gave up after 3 attempts)');
    expect(running.requests).toHaveLength(3);
  });

  it('never retries once a part was delivered: the failure is model_stream_broken', async () => {
    const running = await start(
      sse([text('您的订单'), text('正在')], { ending: 'destroy' }),
      sse([text('again'), DONE]),
    );
    const { parts, error } = await collectFailure(request(running).parts);
    expect(parts).toEqual([
      { type: 'text-delta', text: '您的订单' },
      { type: 'text-delta', text: '正在' },
    ]);
    const failure = modelError(error);
    expect(failure.code).toBe('model_stream_broken');
    expect(failure.retryable).toBe(false);
    expect(failure.message).toContain('broke after 2 parts had been delivered, so it was not retried');
    expect(running.requests).toHaveLength(1);
  });

  it('retries a retryable error event before the first part, and fails at once on one that is not', async () => {
    const running = await start(
      sse(['event: fail\ndata: retry\n\n']),
      sse([text('OK'), DONE]),
      sse(['event: fail\ndata: refused\n\n']),
    );
    expect((await collect(request(running).parts)).at(0)).toEqual({ type: 'text-delta', text: 'OK' });
    const { error } = await collectFailure(request(running).parts);
    expect(modelError(error).message).toContain('the server reported: refused');
    expect(running.requests).toHaveLength(3);
  });

  it('fails at once, unretried, when the reader itself breaks on what it was sent', async () => {
    const running = await start(sse(['event: defect\ndata: -\n\n']), sse([text('OK'), DONE]));
    const { error } = await collectFailure(request(running).parts);
    const failure = modelError(error);
    expect(failure.code).toBe('model_failed');
    expect(failure.retryable).toBe(false);
    expect(failure.message).toBe('the stream could not be read: cannot read properties of undefined');
    expect(running.requests).toHaveLength(1);
  });

  it('fails when no event arrives within firstTokenTimeoutMs, however many keep-alive comments come', async () => {
    const comments = Array.from({ length: 200 }, () => ': keep-alive\n\n');
    const running = await start(sse(comments, { delayMs: 20, ending: 'hang' }));
    const { error } = await collectFailure(
      request(running, { firstTokenTimeoutMs: 150, idleTimeoutMs: 60_000, maxRetries: 0 }).parts,
    );
    const failure = modelError(error);
    expect(failure.code).toBe('model_unavailable');
    expect(failure.retryable).toBe(true);
    expect(failure.message).toContain('sent no event within 150 ms of the request (first-token timeout)');
  });

  it('fails a stream silent for idleTimeoutMs after it started, and retries it while nothing was delivered', async () => {
    const running = await start(sse([NOOP], { ending: 'hang' }), sse([text('OK'), DONE]));
    const { parts } = request(running, { idleTimeoutMs: 100, maxRetries: 1 });
    expect(await collect(parts)).toEqual([
      { type: 'text-delta', text: 'OK' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(running.requests).toHaveLength(2);

    const silent = await start(sse([text('Half'), NOOP], { ending: 'hang' }));
    const { parts: broken } = request(silent, { idleTimeoutMs: 100 });
    const { error } = await collectFailure(broken);
    expect(modelError(error).code).toBe('model_stream_broken');
    expect(modelError(error).message).toContain('was silent for 100 ms (idle timeout)');
    expect(silent.requests).toHaveLength(1);
  });

  it('takes timeouts beyond what a timer holds as "practically never", not as 1 ms', async () => {
    const running = await start(sse([text('one'), text('two'), DONE], { delayMs: 30 }));
    const { parts } = request(running, {
      firstTokenTimeoutMs: 99_999_999_999,
      idleTimeoutMs: 99_999_999_999,
    });
    expect((await collect(parts)).map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'finish']);
    expect(running.requests).toHaveLength(1);
  });

  it('does not count the time the consumer spends on a part against the idle timeout', async () => {
    const running = await start(sse([text('one'), text('two'), DONE], { delayMs: 0 }));
    const received: ChatStreamPart[] = [];
    for await (const part of request(running, { idleTimeoutMs: 50 }).parts) {
      received.push(part);
      // The consumer is busy far longer than the idle timeout; the server said everything already.
      if (received.length === 1) await delay(200);
    }
    expect(received.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'finish']);
  });

  it("rejects with the signal's reason mid-stream and closes the connection", async () => {
    const running = await start(sse([text('First')], { ending: 'hang' }));
    const controller = new AbortController();
    const reason = new Error('the user pressed stop');
    const received: ChatStreamPart[] = [];
    const outcome = (async () => {
      for await (const part of request(running, {}, controller.signal).parts) {
        received.push(part);
        controller.abort(reason);
      }
    })();
    await expect(outcome).rejects.toBe(reason);
    expect(received).toEqual([{ type: 'text-delta', text: 'First' }]);
    await running.requests[0]?.closed;
  });

  it('sends nothing when the signal has already aborted', async () => {
    const running = await start();
    const { error } = await collectFailure(request(running, {}, AbortSignal.abort()).parts);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(running.requests).toHaveLength(0);
  });

  it("names the endpoint without its query and removes the key from the provider's message", async () => {
    const running = await start(
      jsonResponse(401, {
        error: { message: `Incorrect API key provided: ${SECRET}. Check it.`, code: 'invalid_api_key' },
      }),
    );
    const { error } = await collectFailure(
      request(running, {
        url: `${running.baseUrl}/toy?api-version=2024&key=${SECRET}`,
        authHint: 'check TOY_KEY',
      }).parts,
    );
    const failure = modelError(error);
    expect(failure.code).toBe('model_auth');
    expect(failure.message).toBe(
      `POST ${running.baseUrl}/toy answered HTTP 401 Unauthorized: Incorrect API key provided: [redacted]. Check it. [invalid_api_key] (check TOY_KEY)`,
    );
    expect(JSON.stringify(failure)).not.toContain(SECRET);
    expect(running.requests).toHaveLength(1);
  });

  it('leaves ordinary words alone when the key is short', async () => {
    const running = await start(
      jsonResponse(400, { error: { message: 'This request exceeds the maximum context length' } }),
    );
    const { error } = await collectFailure(request(running, { secrets: ['x'] }).parts);
    expect(modelError(error).message).toContain('This request exceeds the maximum context length');
  });
});
