/**
 * `npm run bench:dialects`: what each wire face of one run log costs next to the native chat SSE,
 * measured in the same process and moment (the ratios are the point on a shared machine).
 *
 * 1. One scripted 2,000-delta run started through each face over HTTP on loopback and read to the
 *    end: time to the first byte and to the end, bytes on the wire, CPU per delta (client and server
 *    share this process, so the CPU is both sides'). Medians over interleaved rounds.
 * 2. N followers of one (slowed) run through each face's reconnect route: heap/RSS growth per
 *    follower and total CPU, to show the frames are made once per log and shared.
 *
 * Asserts only that every stream was read whole (its count of answer deltas); never a time.
 */
import { strictEqual } from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import { ScriptedChatModel, textTurn } from '../src/models/index.ts';
import { RunManager } from '../src/runtime/index.ts';
import { testAgent } from '../src/runtime/test-support/test-agent.ts';
import { createApp } from '../src/server/index.ts';
import { MemoryResponseRecords, openDatabase, SqliteRunStore } from '../src/store/index.ts';
import { median, readAll, type StreamRead } from './http-read.ts';

const ROUNDS = 7;
const DELTAS = 2_000;
const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 100);
const QUESTION = '我的订单发货了吗？';

/** Each face's answer-delta frame, as its JSON spells the type (counted to check a stream is whole). */
const FACES = {
  'native chat SSE': '"block.delta"',
  'Responses (plain)': '"response.output_text.delta"',
  'Responses (extensions)': '"response.output_text.delta"',
  'AI SDK UI stream': '"text-delta"',
  'AG-UI': '"TEXT_MESSAGE_CONTENT"',
} as const;
type Face = keyof typeof FACES;

interface Measured extends StreamRead {
  cpuMicros: number;
}

function countOf(text: string, marker: string): number {
  let count = 0;
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) count += 1;
  return count;
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

async function main(): Promise<void> {
  console.log(`node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} · ${cpus().length} cores`);
  const directory = mkdtempSync(join(tmpdir(), 'runstream-dialects-bench-'));
  const database = openDatabase(join(directory, 'bench.db'));
  const store = new SqliteRunStore(database);
  const text = '您好，订单已发货，预计明天送达。'.repeat(500).slice(0, DELTAS * 4);
  const fast = textTurn(text, { chunkSize: 4 });
  // The followers' runs are slowed (1 ms a delta) so every follower joins a run still under way.
  const slow = { parts: textTurn(text, { chunkSize: 4 }), delayMs: 1 };
  const faces = Object.keys(FACES) as Face[];
  const fastTurns = faces.length * (ROUNDS + 1);
  const runs = new RunManager({
    agents: [
      testAgent({
        model: new ScriptedChatModel([...new Array(fastTurns).fill(fast), ...new Array(8).fill(slow)]),
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
  server.setMaxListeners?.(0);
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const user = await store.createUser('bench');
    const token = await store.issueToken(user.id);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let serial = 0;

    /** Starts a run through `face`; returns the response and the ids its followers need. */
    const start = async (face: Face): Promise<{ response: Response; follow: string }> => {
      serial += 1;
      const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { ...headers, ...extra },
          body: JSON.stringify(body),
        });
      const runIdOf = (response: Response) => response.headers.get('x-runstream-run-id') ?? '';
      switch (face) {
        case 'native chat SSE': {
          const conversation = await store.createConversation(user.id, 'bench');
          const response = await post(`/v1/conversations/${conversation.id}/messages`, { text: QUESTION });
          return { response, follow: `/v1/runs/${runIdOf(response)}/events` };
        }
        case 'Responses (plain)':
        case 'Responses (extensions)': {
          const extra: Record<string, string> =
            face === 'Responses (plain)' ? {} : { 'x-runstream-extensions': '1' };
          const response = await post('/v1/responses', { input: QUESTION, stream: true }, extra);
          return { response, follow: `/v1/responses/${runIdOf(response)}?stream=true` };
        }
        case 'AI SDK UI stream': {
          const chatId = `bench-chat-${serial}`;
          const response = await post('/v1/ai-sdk/chat', {
            id: chatId,
            trigger: 'submit-message',
            messages: [{ id: `m${serial}`, role: 'user', parts: [{ type: 'text', text: QUESTION }] }],
          });
          return { response, follow: `/v1/ai-sdk/chat/${chatId}/stream` };
        }
        case 'AG-UI': {
          const response = await post('/v1/ag-ui', {
            threadId: `bench-thread-${serial}`,
            runId: `bench-run-${serial}`,
            messages: [{ id: `m${serial}`, role: 'user', content: QUESTION }],
          });
          return { response, follow: `/v1/ag-ui/runs/${runIdOf(response)}/events` };
        }
      }
    };

    /**
     * Reads a stream whole and checks it carried every delta, counting as it goes and keeping only
     * a marker's length of text between chunks, so the reader's memory is not a copy of the body.
     */
    const readWhole = async (face: Face, response: Response, started: number): Promise<StreamRead> => {
      const marker = FACES[face];
      const decoder = new TextDecoder();
      let carry = '';
      let deltas = 0;
      const scan = (text: string) => {
        const window = carry + text;
        deltas += countOf(window, marker);
        carry = window.slice(-(marker.length - 1));
      };
      const read = await readAll(response, started, (chunk) => scan(decoder.decode(chunk, { stream: true })));
      scan(decoder.decode());
      strictEqual(deltas, DELTAS, `${face}: deltas read`);
      return read;
    };

    const once = async (face: Face): Promise<Measured> => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const { response } = await start(face);
      const read = await readWhole(face, response, started);
      const used = process.cpuUsage(cpu);
      const runId = response.headers.get('x-runstream-run-id');
      if (runId !== null) await runs.settled(runId);
      return { ...read, cpuMicros: used.user + used.system };
    };

    for (const face of faces) await once(face); // warm-up
    const results = new Map<Face, Measured[]>(faces.map((face) => [face, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      // Interleaved, rotating which goes first, so drift on a shared machine hits every face alike.
      for (let index = 0; index < faces.length; index += 1) {
        const face = faces[(index + round) % faces.length] as Face;
        results.get(face)?.push(await once(face));
      }
    }
    const baseline = results.get('native chat SSE') ?? [];
    const of = (measured: Measured[], pick: (m: Measured) => number) => median(measured.map(pick));
    const baseTotal = of(baseline, (m) => m.totalMs);
    const baseBytes = of(baseline, (m) => m.bytes);
    const baseCpu = of(baseline, (m) => m.cpuMicros);
    console.log(
      `\n1. One scripted run of ${DELTAS.toLocaleString('en')} answer deltas per face over HTTP, read to the end (median of ${ROUNDS})`,
    );
    console.log('   face                     first byte   whole run        bytes           CPU/delta');
    for (const face of faces) {
      const measured = results.get(face) ?? [];
      const total = of(measured, (m) => m.totalMs);
      const bytes = of(measured, (m) => m.bytes);
      const cpu = of(measured, (m) => m.cpuMicros);
      console.log(
        `   ${face.padEnd(24)} ${of(measured, (m) => m.firstMs)
          .toFixed(1)
          .padStart(6)} ms` +
          `  ${total.toFixed(0).padStart(5)} ms ${(total / baseTotal).toFixed(2)}x` +
          `  ${(bytes / 1024).toFixed(0).padStart(5)} KB ${(bytes / baseBytes).toFixed(2)}x` +
          `  ${(cpu / DELTAS).toFixed(1).padStart(5)} µs ${(cpu / baseCpu).toFixed(2)}x`,
      );
    }

    console.log(
      `\n2. ${FOLLOWERS} followers of one run (1 ms a delta) through each face's reconnect route, read whole`,
    );
    console.log('   face                     heap/follower  RSS/follower  CPU total  CPU/follower/delta');
    for (const face of faces) {
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const rssBefore = process.memoryUsage().rss;
      let heapPeak = heapBefore;
      let rssPeak = rssBefore;
      const sample = setInterval(() => {
        const memory = process.memoryUsage();
        heapPeak = Math.max(heapPeak, memory.heapUsed);
        rssPeak = Math.max(rssPeak, memory.rss);
      }, 20);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const { response, follow } = await start(face);
      const own = readWhole(face, response, started);
      const extra: Record<string, string> =
        face === 'Responses (extensions)' ? { 'x-runstream-extensions': '1' } : {};
      const followers = await Promise.all(
        Array.from({ length: FOLLOWERS }, () =>
          fetch(`${url}${follow}`, { headers: { authorization: headers.authorization, ...extra } }),
        ),
      );
      await Promise.all([own, ...followers.map((follower) => readWhole(face, follower, started))]);
      const used = process.cpuUsage(cpu);
      clearInterval(sample);
      const runId = response.headers.get('x-runstream-run-id');
      if (runId !== null) await runs.settled(runId);
      const cpuMicros = used.user + used.system;
      console.log(
        `   ${face.padEnd(24)} ${((heapPeak - heapBefore) / 1024 / FOLLOWERS).toFixed(0).padStart(7)} KB` +
          `  ${((rssPeak - rssBefore) / 1024 / FOLLOWERS).toFixed(0).padStart(9)} KB` +
          `  ${(cpuMicros / 1000).toFixed(0).padStart(6)} ms` +
          `  ${(cpuMicros / (FOLLOWERS + 1) / DELTAS).toFixed(2).padStart(8)} µs`,
      );
    }
  } finally {
    await runs.close();
    await new Promise((resolve) => server.close(resolve));
    database.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
