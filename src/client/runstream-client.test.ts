import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createMessageState,
  type LoggedRunEvent,
  ProtocolError,
  reduceAll,
  toMessage,
} from '../protocol/index.ts';
import {
  ConflictError,
  ForbiddenError,
  HttpError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  StreamInterruptedError,
  UnauthorizedError,
} from './client-errors.ts';
import type { ConnectionChange, RunStream } from './run-stream.ts';
import { createRunstreamClient, type RunstreamClientOptions } from './runstream-client.ts';
import {
  type RunLogServer,
  type RunLogServerOptions,
  startRunLogServer,
} from './test-support/run-log-server.ts';
import { completedOrderStatusRun } from './test-support/scripted-runs.ts';

const TOKEN = 'token-alice';
let server: RunLogServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Partial<RunLogServerOptions> = {}): Promise<RunLogServer> {
  server = await startRunLogServer({ token: TOKEN, script: () => completedOrderStatusRun(), ...options });
  return server;
}

function client(url: string, options: Partial<RunstreamClientOptions> = {}) {
  // Deterministic, short backoff: these tests check behaviour, not timing.
  return createRunstreamClient({
    baseUrl: url,
    token: TOKEN,
    initialDelayMs: 5,
    random: () => 0.5,
    ...options,
  });
}

async function collect(stream: RunStream): Promise<LoggedRunEvent[]> {
  const events: LoggedRunEvent[] = [];
  for await (const update of stream) events.push(update.event);
  return events;
}

function serverLog(running: RunLogServer, runId = 'run_1'): LoggedRunEvent[] {
  return running.runs.get(runId)?.events ?? [];
}

describe('following a run', () => {
  it('reads an uninterrupted run: every event once, and the state after each one', async () => {
    const running = await start();
    const stream = client(running.url).sendMessage('conv_1', { text: '我的订单到哪了？' });
    const states: number[] = [];
    const events: LoggedRunEvent[] = [];
    for await (const update of stream) {
      events.push(update.event);
      states.push(update.state.lastSeq);
      expect(update.state).toBe(stream.state);
    }
    expect(events).toEqual(serverLog(running));
    expect(states).toEqual(events.map((event) => event.seq));
    expect(stream.endReason).toBe('done');
    expect(stream.state.status).toBe('completed');
    expect(stream.state.blocks.map((block) => block.kind)).toEqual(['reasoning', 'tool', 'answer']);
    expect(stream.state.anomalies).toEqual([]);
  });

  for (const format of ['sse', 'ndjson'] as const) {
    it(`resumes after sockets cut mid-frame (${format}): each event exactly once, same state`, async () => {
      const running = await start({ cutAfter: { 1: 9, 2: 12 }, retryMs: 5 });
      const changes: ConnectionChange[] = [];
      const stream = client(running.url, { format }).sendMessage(
        'conv_1',
        { text: '我的订单到哪了？' },
        { onConnectionChange: (change) => changes.push(change) },
      );
      const events = await collect(stream);
      const log = serverLog(running);

      expect(events.map((event) => event.seq)).toEqual(log.map((event) => event.seq));
      expect(events).toEqual(log);
      expect(toMessage(stream.state)).toEqual(toMessage(reduceAll(createMessageState(), log)));
      expect(
        running.record.connections.map((connection) => [connection.lastEventId, connection.ended]),
      ).toEqual([
        [undefined, 'cut'],
        ['9', 'cut'],
        ['21', 'done'],
      ]);
      expect(
        changes.filter((change) => change.status === 'reconnecting').map((change) => change.attempt),
      ).toEqual([1, 1]);
    });
  }

  it('answers a resume from before the retained log with run.snapshot, then the tail', async () => {
    const running = await start({ retainFromSeq: 20 });
    const full = await client(running.url).sendMessage('conv_1', { text: 'hi' }).result();
    const earlier = reduceAll(createMessageState(), serverLog(running).slice(0, 3));

    const resumed = client(running.url).followRun('run_1', { state: earlier });
    const events = await collect(resumed);
    expect(events[0]?.type).toBe('run.snapshot');
    expect(events[0]?.seq).toBe(19);
    expect(events.slice(1).map((event) => event.seq)).toEqual(
      serverLog(running)
        .slice(19)
        .map((event) => event.seq),
    );
    expect(toMessage(resumed.state)).toEqual(toMessage(full));
    expect(running.record.connections[1]?.lastEventId).toBe('3');
  });

  it('stops on 204 when the run is finished and already caught up', async () => {
    const running = await start();
    const finished = await client(running.url).sendMessage('conv_1', { text: 'hi' }).result();
    const again = client(running.url).followRun('run_1', { state: finished });
    expect(await collect(again)).toEqual([]);
    expect(again.endReason).toBe('no_content');
    expect(again.state).toBe(finished);
  });

  it("honours the server's retry: as the least delay before reconnecting", async () => {
    const running = await start({ cutAfter: { 1: 4 }, retryMs: 80 });
    const delays: number[] = [];
    await client(running.url)
      .sendMessage(
        'conv_1',
        { text: 'hi' },
        {
          onConnectionChange: (change) => void (change.delayMs !== undefined && delays.push(change.delayMs)),
        },
      )
      .result();
    // Floor 80 from retry:, plus full jitter of 0.5 × 5 ms.
    expect(delays).toEqual([82]);
  });

  it('waits out Retry-After on a 429 while reconnecting, then resumes', async () => {
    const running = await start({ cutAfter: { 1: 5 }, failWith: { 2: { status: 429, retryAfter: '1' } } });
    const changes: ConnectionChange[] = [];
    const stream = client(running.url).sendMessage(
      'conv_1',
      { text: 'hi' },
      { onConnectionChange: (change) => changes.push(change) },
    );
    const events = await collect(stream);
    expect(events).toEqual(serverLog(running));
    const reconnects = changes.filter((change) => change.status === 'reconnecting');
    expect(reconnects.map((change) => change.attempt)).toEqual([1, 2]);
    expect(reconnects[1]?.error).toBeInstanceOf(RateLimitedError);
    expect(reconnects[1]?.delayMs).toBeGreaterThanOrEqual(1000);
    expect(running.record.connections.map((connection) => connection.ended)).toEqual([
      'cut',
      'status',
      'done',
    ]);
  });

  it('reconnects when a connection goes silent past the idle timeout', async () => {
    const running = await start({ intervalMs: 100, script: () => completedOrderStatusRun(2) });
    const stream = client(running.url, { idleTimeoutMs: 40 }).sendMessage('conv_1', { text: 'hi' });
    const events = await collect(stream);
    expect(events).toEqual(serverLog(running));
    expect(running.record.connections.length).toBeGreaterThan(1);
    await vi.waitFor(() => expect(running.record.connections[0]?.ended).toBe('disconnect'));
  });

  it('reconnects when the server accepts a connection and never sends headers', async () => {
    const running = await start();
    await client(running.url).sendMessage('conv_1', { text: 'hi' }).result();
    running.options.stall = { 2: true };
    // Any timeout shows the behaviour (the stall is endless); a roomy one keeps a loaded machine from
    // timing out the healthy connections too.
    const followed = client(running.url, { idleTimeoutMs: 300 }).followRun('run_1');
    const events = await collect(followed);
    expect(events).toEqual(serverLog(running));
    await vi.waitFor(() => expect(running.record.connections[1]?.ended).toBe('disconnect'));
    expect(running.record.connections.at(-1)?.ended).toBe('done');
  });

  it('gives up with StreamInterruptedError after maxAttempts failed reconnects', async () => {
    const running = await start({ cutAfter: { 1: 3 }, failWith: { 2: { status: 503 }, 3: { status: 503 } } });
    const stream = client(running.url, { maxAttempts: 2 }).sendMessage('conv_1', { text: 'hi' });
    const error = await collect(stream).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect((error as StreamInterruptedError).code).toBe('reconnect_exhausted');
    expect((error as StreamInterruptedError).lastSeq).toBe(3);
    expect((error as StreamInterruptedError).cause).toBeInstanceOf(ServerError);
  });

  it('cannot resume a stream cut before the run id was known, and says so', async () => {
    const running = await start({ cutAfter: { 1: 0 } });
    const stripRunId: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const headers = new Headers(response.headers);
      headers.delete('x-runstream-run-id');
      return new Response(response.body, { status: response.status, headers });
    };
    const error = await collect(
      client(running.url, { fetch: stripRunId }).sendMessage('conv_1', { text: 'hi' }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect((error as StreamInterruptedError).code).toBe('unresumable');
  });
});

describe('errors before the stream starts', () => {
  it('reports 401 as UnauthorizedError with the server code, never as a network error', async () => {
    const running = await start();
    const stream = client(running.url, { token: 'wrong' }).sendMessage('conv_1', { text: 'hi' });
    const error = await collect(stream).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).not.toBeInstanceOf(NetworkError);
    expect((error as UnauthorizedError).status).toBe(401);
    expect((error as UnauthorizedError).code).toBe('unauthorized');
    expect(running.runs.size).toBe(0);
  });

  it('reports 429 with retryAfterMs from Retry-After, and does not resend the POST', async () => {
    const running = await start({ failWith: { 1: { status: 429, retryAfter: '3', code: 'rate_limited' } } });
    const error = await collect(client(running.url).sendMessage('conv_1', { text: 'hi' })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3000);
    expect((error as RateLimitedError).code).toBe('rate_limited');
    expect(running.record.connections).toHaveLength(1);
  });

  it.each([
    [403, ForbiddenError, 'forbidden'],
    [404, NotFoundError, 'not_found'],
    [409, ConflictError, 'confirmation_pending'],
    [413, PayloadTooLargeError, 'payload_too_large'],
    [500, ServerError, 'internal_error'],
    [502, ServerError, 'status_502'],
    [422, HttpError, 'invalid_request'],
  ] as const)('maps %i to a typed error with its code', async (status, type, code) => {
    const running = await start({
      failWith: { 1: { status, ...(code.startsWith('status_') ? {} : { code }) } },
    });
    const error = await collect(client(running.url).sendMessage('conv_1', { text: 'hi' })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(type);
    expect((error as HttpError).status).toBe(status);
    expect((error as HttpError).code).toBe(code);
  });

  it('reports a refused connection as NetworkError', async () => {
    const running = await start();
    const url = running.url;
    await running.close();
    server = undefined;
    const error = await collect(client(url).sendMessage('conv_1', { text: 'hi' })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NetworkError);
  });

  it('reports an unknown run as NotFoundError', async () => {
    const running = await start();
    const error = await collect(client(running.url).followRun('run_404')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
  });
});

describe('stop is not disconnect', () => {
  it('aborting the read is a disconnect: the run goes on and can be followed to the end', async () => {
    const running = await start({ intervalMs: 5 });
    const controller = new AbortController();
    const stream = client(running.url).sendMessage('conv_1', { text: 'hi' }, { signal: controller.signal });
    const error = await (async () => {
      for await (const update of stream) if (update.event.seq === 6) controller.abort();
    })().catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
    expect(stream.lastSeq).toBe(6);
    await vi.waitFor(() => expect(running.record.connections[0]?.ended).toBe('disconnect'));
    expect(running.record.cancels).toEqual([]);

    const rest = client(running.url).followRun('run_1', { state: stream.state });
    const later = await collect(rest);
    expect(later[0]?.seq).toBe(7);
    expect(rest.state.status).toBe('completed');
    expect(toMessage(rest.state)).toEqual(toMessage(reduceAll(createMessageState(), serverLog(running))));
  });

  it('cancel() is an explicit stop: run.finished cancelled with the reason, partial blocks kept', async () => {
    const running = await start({ intervalMs: 5 });
    const api = client(running.url);
    const stream = api.sendMessage('conv_1', { text: 'hi' });
    for await (const update of stream) {
      if (
        update.event.type === 'block.delta' &&
        update.event.blockId === 'b3' &&
        update.state.lastSeq === 16
      ) {
        const result = await api.cancel('run_1', 'user_stop');
        expect(result).toEqual({ id: 'run_1', status: 'cancelled', cancelReason: 'user_stop' });
      }
    }
    expect(stream.endReason).toBe('done');
    expect(stream.state.status).toBe('cancelled');
    expect(stream.state.finishReason).toBe('user_stop');
    const answer = stream.state.blocks.find((block) => block.kind === 'answer');
    expect(answer?.kind === 'answer' && answer.status).toBe('cancelled');
    expect(answer?.kind === 'answer' && answer.text.length).toBeGreaterThan(0);
    expect(running.record.cancels).toEqual([{ runId: 'run_1', reason: 'user_stop' }]);
    // Idempotent: a second stop changes nothing.
    expect(await api.cancel('run_1', 'user_stop')).toEqual({
      id: 'run_1',
      status: 'cancelled',
      cancelReason: 'user_stop',
    });
  });

  it('cancel() reports HTTP errors as typed errors', async () => {
    const running = await start();
    await expect(client(running.url).cancel('run_missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client(running.url, { token: 'nope' }).cancel('run_missing')).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
  });
});

describe('what is never retried, and what always is', () => {
  it.each([
    [401, UnauthorizedError],
    [404, NotFoundError],
    [403, ForbiddenError],
  ] as const)('stops at a %i on a reconnect, after one attempt', async (status, type) => {
    const running = await start({ cutAfter: { 1: 4 }, failWith: { 2: { status } } });
    const error = await collect(client(running.url).sendMessage('conv_1', { text: 'hi' })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(type);
    expect(running.record.connections).toHaveLength(2);
  });

  it('stops at a corrupt frame mid-stream with a ProtocolError, and does not reconnect', async () => {
    for (const format of ['sse', 'ndjson'] as const) {
      const running = await start({ corruptAfter: { 1: 5 } });
      const stream = client(running.url, { format }).sendMessage('conv_1', { text: 'hi' });
      const error = await collect(stream).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProtocolError);
      expect(stream.lastSeq).toBe(5);
      expect(running.record.connections).toHaveLength(1);
      await running.close();
      server = undefined;
    }
  });

  it('retries the first GET of followRun (a refresh during a brief 503)', async () => {
    const running = await start();
    await client(running.url).sendMessage('conv_1', { text: 'hi' }).result();
    running.options.failWith = { 2: { status: 503, retryAfter: '0' } };
    const followed = client(running.url).followRun('run_1');
    expect(await collect(followed)).toEqual(serverLog(running));
    expect(running.record.connections.map((connection) => connection.ended)).toEqual([
      'done',
      'status',
      'done',
    ]);
  });

  it('does not retry a token function that throws, and reports its own error', async () => {
    const running = await start();
    const broken = new Error('token store unavailable');
    const api = client(running.url, {
      token: () => {
        throw broken;
      },
    });
    await expect(collect(api.followRun('run_1'))).rejects.toBe(broken);
    await expect(api.cancel('run_1')).rejects.toBe(broken);
    expect(running.record.connections).toHaveLength(0);
  });

  it('caps every delay at maxDelayMs, whatever the server asks', async () => {
    const running = await start({ cutAfter: { 1: 3 }, retryMs: 3_600_000 });
    const delays: number[] = [];
    await client(running.url, { maxDelayMs: 40 })
      .sendMessage(
        'conv_1',
        { text: 'hi' },
        {
          onConnectionChange: (change) => void (change.delayMs !== undefined && delays.push(change.delayMs)),
        },
      )
      .result();
    expect(delays).toEqual([40]);
  });
});

describe('the caller is in control', () => {
  it('delivers nothing after abort, even events already buffered', async () => {
    const running = await start({ coalesce: true, intervalMs: 1 });
    await client(running.url).sendMessage('conv_1', { text: 'hi' }).result();
    const controller = new AbortController();
    const seen: number[] = [];
    const followed = client(running.url).followRun('run_1', { signal: controller.signal });
    const error = await (async () => {
      for await (const update of followed) {
        seen.push(update.event.seq);
        if (update.event.seq === 3) controller.abort();
      }
    })().catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
    expect(seen).toEqual([1, 2, 3]);
    expect(followed.lastSeq).toBe(3);
  });

  it('reports closed on every exit, an abort included', async () => {
    const running = await start({ intervalMs: 5 });
    const controller = new AbortController();
    const statuses: string[] = [];
    const stream = client(running.url).sendMessage(
      'conv_1',
      { text: 'hi' },
      { signal: controller.signal, onConnectionChange: (change) => statuses.push(change.status) },
    );
    await (async () => {
      for await (const update of stream) if (update.event.seq === 2) controller.abort();
    })().catch(() => undefined);
    expect(statuses).toEqual(['connecting', 'open', 'closed']);

    const broken: string[] = [];
    for await (const _update of client(running.url).followRun('run_1', {
      onConnectionChange: (change) => broken.push(change.status),
    })) {
      break;
    }
    expect(broken.at(-1)).toBe('closed');
  });

  it('does not take a slow reader for a dead server', async () => {
    const running = await start({ intervalMs: 10, script: () => completedOrderStatusRun(4) });
    const stream = client(running.url, { idleTimeoutMs: 100 }).sendMessage('conv_1', { text: 'hi' });
    for await (const update of stream) {
      if (update.event.seq === 3) await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(stream.state.status).toBe('completed');
    expect(running.record.connections).toHaveLength(1);
  });

  it('a stop during a tool call closes the tool block too', async () => {
    // The script ends with the tool running, so the stop always lands while it runs, however slow
    // the machine.
    const running = await start({ intervalMs: 5, script: () => completedOrderStatusRun().slice(0, 10) });
    const api = client(running.url);
    const stream = api.sendMessage('conv_1', { text: 'hi' });
    for await (const update of stream) {
      if (update.event.type === 'block.updated' && update.event.status === 'running')
        await api.cancel('run_1');
    }
    const tool = stream.state.blocks.find((block) => block.kind === 'tool');
    expect(tool?.kind === 'tool' && [tool.status, tool.endedAt !== null]).toEqual(['cancelled', true]);
    expect(stream.state.status).toBe('cancelled');
    expect(stream.state.anomalies).toEqual([]);
  });
});
