import { describe, expect, it } from 'vitest';
import type { ChatStreamPart } from './chat-model.ts';
import { OpenAiChatModel } from './openai-chat-model.ts';
import {
  chunkFrame,
  DONE_FRAME,
  frame,
  jsonResponse,
  sse,
} from './test-support/fake-chat-completions-server.ts';
import {
  API_KEY,
  collect,
  collectFailure,
  fakeServerPerTest,
  HELLO,
  modelError,
  modelFor,
  ROLE_FRAME,
} from './test-support/openai-test-kit.ts';

const start = fakeServerPerTest();

describe('OpenAiChatModel retries and errors', () => {
  it('retries a 429 after its Retry-After, with an identical body', async () => {
    const running = await start(
      jsonResponse(
        429,
        { error: { message: 'Rate limit reached', type: 'requests' } },
        { 'retry-after': '1' },
      ),
      sse([chunkFrame({ content: 'OK' }, 'stop'), DONE_FRAME]),
    );
    const started = performance.now();
    // No jitter: the whole pause is the server's Retry-After.
    const parts = await collect(modelFor(running, { random: () => 0 }).stream(HELLO));
    const elapsed = performance.now() - started;

    expect(parts).toEqual([
      { type: 'text-delta', text: 'OK' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(running.requests).toHaveLength(2);
    expect(running.requests[1]?.body).toBe(running.requests[0]?.body);
    expect(elapsed).toBeGreaterThanOrEqual(950);
  });

  it('retries a 500 and then streams', async () => {
    const running = await start(
      jsonResponse(500, { error: { message: 'The server had an error', type: 'server_error' } }),
      sse([chunkFrame({ content: 'OK' }, 'stop'), DONE_FRAME]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(running.requests).toHaveLength(2);
  });

  it('gives up after maxRetries with the last error, still marked retryable', async () => {
    const running = await start(
      jsonResponse(503, { error: { message: 'Service overloaded' } }),
      jsonResponse(502, { error: { message: 'Bad gateway' } }),
      jsonResponse(503, { error: { message: 'Service overloaded' } }),
    );
    const { error } = await collectFailure(modelFor(running, { maxRetries: 2 }).stream(HELLO));
    const failure = modelError(error);
    expect(failure.code).toBe('model_unavailable');
    expect(failure.status).toBe(503);
    expect(failure.retryable).toBe(true);
    expect(failure.message).toContain('Service overloaded');
    expect(failure.message).toContain('gave up after 3 attempts');
    expect(running.requests).toHaveLength(3);
  });

  it('fails at once when Retry-After asks for longer than maxDelayMs', async () => {
    const running = await start(
      jsonResponse(429, { error: { message: 'Slow down' } }, { 'retry-after': '120' }),
    );
    const { error } = await collectFailure(modelFor(running, { maxDelayMs: 1000 }).stream(HELLO));
    expect(modelError(error).code).toBe('model_rate_limited');
    expect(modelError(error).message).toContain('asked to wait 120 s');
    expect(running.requests).toHaveLength(1);
  });

  it('does not retry a 401, and never shows the key even when the server echoes it', async () => {
    const running = await start(
      jsonResponse(401, {
        error: {
          message: `Incorrect API key provided: ${API_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    );
    const { error } = await collectFailure(modelFor(running).stream(HELLO));
    const failure = modelError(error);
    expect(failure.code).toBe('model_auth');
    expect(failure.status).toBe(401);
    expect(failure.retryable).toBe(false);
    expect(failure.message).toContain('Incorrect API key provided: [redacted]');
    expect(failure.message).not.toContain(API_KEY);
    expect(JSON.stringify(failure)).not.toContain(API_KEY);
    expect(running.requests).toHaveLength(1);
  });

  it.each([400, 404, 422])(
    'reports a %i as model_bad_request with the server message, not retried',
    async (status) => {
      const running = await start(
        jsonResponse(status, {
          error: {
            message: 'The model `gpt-9` does not exist',
            type: 'invalid_request_error',
            code: 'model_not_found',
          },
        }),
      );
      const { error } = await collectFailure(modelFor(running).stream(HELLO));
      const failure = modelError(error);
      expect(failure.code).toBe('model_bad_request');
      expect(failure.status).toBe(status);
      expect(failure.message).toContain('The model `gpt-9` does not exist [model_not_found]');
      expect(running.requests).toHaveLength(1);
    },
  );

  it('reports a connection cut after parts were delivered as model_stream_broken, without a retry', async () => {
    const running = await start(
      sse([ROLE_FRAME, chunkFrame({ content: '您的订单' }), chunkFrame({ content: '正在' })], {
        ending: 'destroy',
      }),
      sse([chunkFrame({ content: 'second answer' }, 'stop'), DONE_FRAME]),
    );
    const { parts, error } = await collectFailure(modelFor(running).stream(HELLO));
    expect(parts).toEqual([
      { type: 'text-delta', text: '您的订单' },
      { type: 'text-delta', text: '正在' },
    ]);
    const failure = modelError(error);
    expect(failure.code).toBe('model_stream_broken');
    expect(failure.retryable).toBe(false);
    expect(failure.message).toMatch(/broke after 2 parts had been delivered, so it was not retried/);
    expect(modelError(failure.cause).code).toBe('model_unavailable');
    expect(running.requests).toHaveLength(1);
  });

  it('retries a connection cut before anything was delivered', async () => {
    const running = await start(
      sse([ROLE_FRAME], { ending: 'destroy' }),
      sse([chunkFrame({ content: 'OK' }, 'stop'), DONE_FRAME]),
    );
    const parts = await collect(modelFor(running).stream(HELLO));
    expect(parts.at(0)).toEqual({ type: 'text-delta', text: 'OK' });
    expect(running.requests).toHaveLength(2);
  });

  it('reports a stream that ends without [DONE] or finish_reason as model_stream_broken', async () => {
    const running = await start(sse([ROLE_FRAME, chunkFrame({ content: 'Half an answ' })]));
    const { parts, error } = await collectFailure(modelFor(running).stream(HELLO));
    expect(parts).toEqual([{ type: 'text-delta', text: 'Half an answ' }]);
    expect(modelError(error).code).toBe('model_stream_broken');
    expect(modelError(error).message).toContain('ended without [DONE] or a finish_reason');
    expect(running.requests).toHaveLength(1);
  });

  it('turns an error frame inside the stream into a ModelError', async () => {
    const running = await start(
      sse([
        chunkFrame({ content: 'Let me' }),
        frame({ error: { message: 'Upstream provider overloaded', code: 502 } }),
        DONE_FRAME,
      ]),
    );
    const { parts, error } = await collectFailure(modelFor(running).stream(HELLO));
    expect(parts).toEqual([{ type: 'text-delta', text: 'Let me' }]);
    const failure = modelError(error);
    expect(failure.code).toBe('model_stream_broken');
    expect(failure.message).toContain(
      'the provider reported an error in the stream: Upstream provider overloaded',
    );
    expect(modelError(failure.cause).code).toBe('model_unavailable');
    expect(running.requests).toHaveLength(1);
  });

  it('reports an error frame before any part by its type, and retries it only when that may help', async () => {
    const running = await start(
      sse([
        frame({
          error: {
            message: 'Input data may contain inappropriate content.',
            type: 'invalid_request_error',
            code: 'data_inspection_failed',
          },
        }),
      ]),
      sse([frame({ error: { message: 'Rate limit exceeded', code: 429 } }), DONE_FRAME]),
      sse([chunkFrame({ content: 'OK' }, 'stop'), DONE_FRAME]),
    );
    const model = modelFor(running);
    const { error } = await collectFailure(model.stream(HELLO));
    expect(modelError(error).code).toBe('model_bad_request');
    expect(modelError(error).message).toContain(
      'Input data may contain inappropriate content. [data_inspection_failed]',
    );
    expect(running.requests).toHaveLength(1);

    expect((await collect(model.stream(HELLO))).at(0)).toEqual({ type: 'text-delta', text: 'OK' });
    expect(running.requests).toHaveLength(3);
  });

  it('reports an unreachable server as model_unavailable after its retries', async () => {
    const running = await start();
    const baseUrl = running.baseUrl;
    await running.close();
    const model = new OpenAiChatModel({
      baseUrl,
      apiKey: API_KEY,
      model: 'm',
      maxRetries: 1,
      initialDelayMs: 1,
    });
    const { error } = await collectFailure(model.stream(HELLO));
    const failure = modelError(error);
    expect(failure.code).toBe('model_unavailable');
    expect(failure.message).toContain(`POST ${baseUrl}/chat/completions failed`);
    expect(failure.message).toContain('gave up after 2 attempts');
  });

  it('fails an attempt that falls silent for timeoutMs (both timeouts at once)', async () => {
    const running = await start(sse([ROLE_FRAME], { ending: 'hang' }));
    const { error } = await collectFailure(
      modelFor(running, { timeoutMs: 100, maxRetries: 0 }).stream(HELLO),
    );
    expect(modelError(error).code).toBe('model_unavailable');
    expect(modelError(error).message).toContain('was silent for 100 ms (idle timeout)');
  });

  it('explains a 200 with JSON instead of an event stream', async () => {
    const running = await start(
      jsonResponse(200, { id: 'chatcmpl-1', object: 'chat.completion', choices: [] }),
    );
    const { error } = await collectFailure(modelFor(running).stream(HELLO));
    expect(modelError(error).code).toBe('model_failed');
    expect(modelError(error).message).toContain('does this server support stream: true?');
  });
});

describe('OpenAiChatModel abort', () => {
  it('rejects with the signal reason mid-stream and closes the connection', async () => {
    const running = await start(sse([ROLE_FRAME, chunkFrame({ content: 'First' })], { ending: 'hang' }));
    const controller = new AbortController();
    const reason = new Error('the user pressed stop');
    const parts: ChatStreamPart[] = [];
    const outcome = (async () => {
      for await (const part of modelFor(running).stream({ ...HELLO, signal: controller.signal })) {
        parts.push(part);
        controller.abort(reason);
      }
    })();
    await expect(outcome).rejects.toBe(reason);
    expect(parts).toEqual([{ type: 'text-delta', text: 'First' }]);
    await running.requests[0]?.closed;
  });

  it('rejects with an AbortError while waiting for the server, and during a retry pause', async () => {
    const running = await start(
      sse([], { ending: 'hang' }),
      jsonResponse(503, { error: { message: 'busy' } }, { 'retry-after': '10' }),
    );
    const model = modelFor(running, { maxDelayMs: 60_000 });
    const waiting = new AbortController();
    const first = collect(model.stream({ ...HELLO, signal: waiting.signal }));
    setTimeout(() => waiting.abort(), 50);
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });

    const pausing = new AbortController();
    const second = collect(model.stream({ ...HELLO, signal: pausing.signal }));
    setTimeout(() => pausing.abort(), 100);
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    expect(running.requests).toHaveLength(2);
  });

  it('does not send a request when the signal is already aborted', async () => {
    const running = await start();
    const { error } = await collectFailure(
      modelFor(running).stream({ ...HELLO, signal: AbortSignal.abort() }),
    );
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(running.requests).toHaveLength(0);
  });

  it('closes the connection when the consumer stops reading early', async () => {
    const running = await start(
      sse([chunkFrame({ content: 'One' }), chunkFrame({ content: 'Two' })], { ending: 'hang' }),
    );
    for await (const part of modelFor(running).stream(HELLO)) {
      expect(part).toEqual({ type: 'text-delta', text: 'One' });
      break;
    }
    await running.requests[0]?.closed;
  });
});
