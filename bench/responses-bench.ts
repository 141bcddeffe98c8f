/**
 * `npm run bench:responses`: what the Responses face costs next to the native run protocol, both
 * measured in the same process and moment (the ratios are the point on a shared machine).
 *
 * 1. Encoding: one realistic 20,000-event run written as native SSE frames (`encodeRunEventSse`, the
 *    baseline) and as Responses SSE frames (`ResponsesEventMapper` folding every event with
 *    `reduce()`, then `encodeResponsesEvent`).
 * 2. Over HTTP on loopback: the same scripted 2,000-delta run started through
 *    `POST /v1/conversations/{id}/messages` (baseline) and through `POST /v1/responses` with
 *    `stream: true`, read to the end: time to the first byte and to the end.
 *
 * Asserts only that every stream was read whole; never a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import { ScriptedChatModel, textTurn } from '../src/models/index.ts';
import { encodeRunEventSse, type LoggedRunEvent } from '../src/protocol/index.ts';
import { RunManager } from '../src/runtime/index.ts';
import { testAgent } from '../src/runtime/test-support/test-agent.ts';
import {
  createApp,
  encodeResponsesEvent,
  type ResponseContext,
  ResponsesEventMapper,
} from '../src/server/index.ts';
import { MemoryResponseRecords, openDatabase, SqliteRunStore } from '../src/store/index.ts';
import { median, readAll } from './http-read.ts';
import { createRealisticRun } from './realistic-run.ts';

const ROUNDS = 7;
const HTTP_ROUNDS = 9;
const DELTAS = 2_000;

const context: ResponseContext = {
  id: 'run_bench',
  createdAt: Date.now(),
  model: 'bench',
  instructions: null,
  tools: [],
  previousResponseId: null,
  conversationId: 'conv_bench',
  traceId: null,
  metadata: {},
};

function encodeNative(events: readonly LoggedRunEvent[]): number {
  let bytes = 0;
  for (const event of events) bytes += encodeRunEventSse(event).length;
  return bytes;
}

function encodeResponses(events: readonly LoggedRunEvent[]): { bytes: number; frames: number } {
  const mapper = new ResponsesEventMapper(context);
  let bytes = 0;
  let frames = 0;
  for (const event of events)
    for (const mapped of mapper.push(event)) {
      bytes += encodeResponsesEvent(mapped, false).length;
      frames += 1;
    }
  return { bytes, frames };
}

function timeRounds(work: () => void): number[] {
  work(); // warm-up
  return Array.from({ length: ROUNDS }, () => {
    const started = performance.now();
    work();
    return performance.now() - started;
  });
}

async function main(): Promise<void> {
  console.log(`node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} · ${cpus().length} cores`);
  const { events } = createRealisticRun({ eventCount: 20_000 });
  const native = timeRounds(() => encodeNative(events));
  const responses = timeRounds(() => encodeResponses(events));
  const shape = encodeResponses(events);
  const nativeRate = events.length / (median(native) / 1000);
  const responsesRate = events.length / (median(responses) / 1000);
  console.log('\n1. Encoding one run of 20,000 native events (median of 7)');
  console.log(
    `   native SSE:     ${Math.round(nativeRate).toLocaleString('en')} events/s, ${(encodeNative(events) / 1024).toFixed(0)} KB`,
  );
  console.log(
    `   Responses SSE:  ${Math.round(responsesRate).toLocaleString('en')} native events/s -> ${shape.frames.toLocaleString('en')} frames, ${(shape.bytes / 1024).toFixed(0)} KB`,
  );
  console.log(`   ratio:          ${(responsesRate / nativeRate).toFixed(2)}x the native encoder's rate`);

  const directory = mkdtempSync(join(tmpdir(), 'runstream-responses-bench-'));
  const database = openDatabase(join(directory, 'bench.db'));
  const store = new SqliteRunStore(database);
  const turn = textTurn('您好，订单已发货，预计明天送达。'.repeat(500).slice(0, DELTAS * 4), {
    chunkSize: 4,
  });
  const runs = new RunManager({
    agents: [
      testAgent({
        model: new ScriptedChatModel(new Array(2 * (HTTP_ROUNDS + 1)).fill(turn)),
        tools: [],
        skills: [],
        instructions: '你是客服。',
      }),
    ],
    store,
  });
  const app = createApp({
    store,
    runs,
    responses: { records: new MemoryResponseRecords() },
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const user = await store.createUser('bench');
    const token = await store.issueToken(user.id);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const chat = async () => {
      const conversation = await store.createConversation(user.id, 'bench');
      const started = performance.now();
      const response = await fetch(`${url}/v1/conversations/${conversation.id}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ text: '我的订单发货了吗？' }),
      });
      const result = await readAll(response, started);
      await runs.settled(response.headers.get('x-runstream-run-id') ?? '');
      return result;
    };
    const responsesCall = async () => {
      const started = performance.now();
      const response = await fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: '我的订单发货了吗？', stream: true }),
      });
      const result = await readAll(response, started);
      await runs.settled(response.headers.get('x-runstream-run-id') ?? '');
      return result;
    };
    await chat();
    await responsesCall();
    const results = {
      chat: [] as Awaited<ReturnType<typeof chat>>[],
      responses: [] as Awaited<ReturnType<typeof chat>>[],
    };
    for (let round = 0; round < HTTP_ROUNDS; round += 1) {
      // Interleaved, alternating which goes first, so drift on a shared machine hits both alike.
      if (round % 2 === 0) {
        results.chat.push(await chat());
        results.responses.push(await responsesCall());
      } else {
        results.responses.push(await responsesCall());
        results.chat.push(await chat());
      }
    }
    const line = (name: string, measured: typeof results.chat) =>
      `   ${name.padEnd(22)} first byte ${median(measured.map((m) => m.firstMs)).toFixed(1)} ms, ` +
      `whole run ${median(measured.map((m) => m.totalMs)).toFixed(0)} ms, ${(median(measured.map((m) => m.bytes)) / 1024).toFixed(0)} KB`;
    console.log(
      `\n2. One scripted run of ${DELTAS.toLocaleString('en')} deltas over HTTP, read to the end (median of ${HTTP_ROUNDS})`,
    );
    console.log(line('chat API (native SSE)', results.chat));
    console.log(line('Responses API (SSE)', results.responses));
    const ratio =
      median(results.responses.map((m) => m.totalMs)) / median(results.chat.map((m) => m.totalMs));
    console.log(
      `   ratio:                 the Responses stream takes ${ratio.toFixed(2)}x the chat stream's time`,
    );
  } finally {
    await runs.close();
    await new Promise((resolve) => server.close(resolve));
    database.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
