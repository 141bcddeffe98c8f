import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Database } from 'better-sqlite3';
import type { ChatModel } from '../../models/index.ts';
import {
  type Block,
  createMessageState,
  createRunEventDecoderStream,
  type Message,
  type RunEvent,
  reduceAll,
  toMessage,
} from '../../protocol/index.ts';
import { type AnyTool, RunManager } from '../../runtime/index.ts';
import { testAgent } from '../../runtime/test-support/test-agent.ts';
import { createApp } from '../../server/create-app.ts';
import { openDatabase, SqliteRunStore } from '../../store/index.ts';

/**
 * The fault campaigns' server: the real HTTP app and run manager on a real SQLite file, on a
 * loopback port, with the model and tools a campaign makes faulty. Unlike `startTestServer` (the
 * NovaShop composition), it takes any tools, and it keeps what the server reports (persistence
 * errors, log lines) so a campaign can check that a fault is explained, not only survived.
 */

export interface FaultServerOptions {
  model: ChatModel;
  tools?: readonly AnyTool[];
  /** Where the SQLite file goes (a tmpfs, to fill the disk); default a fresh temporary folder. */
  directory?: string;
  /** Applied to the server's connection right after it is opened (e.g. a short busy timeout). */
  configure?: (database: Database) => void;
  /** The user and token of a server this one restarts (same file). */
  user?: { id: string; token: string };
}

export interface PersistenceError {
  runId: string;
  error: unknown;
}

export interface FaultServer {
  baseUrl: string;
  token: string;
  userId: string;
  databasePath: string;
  database: Database;
  store: SqliteRunStore;
  runs: RunManager;
  /** Every failed write the run manager reported (`onPersistenceError`), in order. */
  persistenceErrors: PersistenceError[];
  /** Every line the HTTP app logged. */
  logLines: Record<string, unknown>[];
  api(path: string, init?: RequestInit): Promise<Response>;
  newConversation(): Promise<string>;
  /**
   * Stop this server (its runs end as a shutdown ends them) and start another on the same file with
   * the same model, tools and user, as a restart does; the new one owns the folder from then on.
   */
  restart(): Promise<FaultServer>;
  close(): Promise<void>;
}

export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  const ownDirectory = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'runstream-faults-'));
  const databasePath = join(directory, 'runstream.db');
  const database = openDatabase(databasePath);
  options.configure?.(database);
  const store = new SqliteRunStore(database);
  const user = options.user ?? (await store.createUser('shopper'));
  const token = options.user?.token ?? (await store.issueToken(user.id));
  const persistenceErrors: PersistenceError[] = [];
  const logLines: Record<string, unknown>[] = [];
  const runs = new RunManager({
    agents: [
      testAgent({
        model: options.model,
        tools: options.tools ?? [],
        skills: [],
        instructions: '你是 NovaShop 客服。',
      }),
    ],
    store,
    onPersistenceError: (runId, error) => persistenceErrors.push({ runId, error }),
  });
  const app = createApp({ store, runs, log: (line) => logLines.push(line) });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
  return {
    baseUrl,
    token,
    userId: user.id,
    databasePath,
    database,
    store,
    runs,
    persistenceErrors,
    logLines,
    api,
    async newConversation() {
      const response = await api('/v1/conversations', { method: 'POST', body: '{}' });
      if (response.status !== 201) throw new Error(`POST /v1/conversations answered ${response.status}`);
      return ((await response.json()) as { id: string }).id;
    },
    async restart() {
      await stop();
      const next = await startFaultServer({ ...options, directory, user: { id: user.id, token } });
      return ownDirectory ? { ...next, close: () => next.close().finally(removeDirectory) } : next;
    },
    async close() {
      await stop();
      if (ownDirectory) removeDirectory();
    },
  };

  async function stop(): Promise<void> {
    await runs.close();
    // Streams a fault left hanging must not hold the close.
    (server as Server).closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    database.close();
  }

  function removeDirectory(): void {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** What one streamed request brought: its HTTP status and every event it carried, in order. */
export interface Streamed {
  status: number;
  events: RunEvent[];
  /** The JSON body of a refusal (not a stream). */
  body?: unknown;
}

/** Read a run stream to its end (`done`), decoding with the protocol's own SSE decoder. */
export async function readStream(response: Response): Promise<Streamed> {
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
    return { status: response.status, events: [], body: await response.json().catch(() => undefined) };
  const events: RunEvent[] = [];
  if (response.body === null) return { status: response.status, events };
  // A tool may put a large result on one event; the cap here is the default's, made explicit.
  const reader = response.body
    .pipeThrough(createRunEventDecoderStream('sse', { maxBufferedChars: 8 * 1024 * 1024 }))
    .getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { status: response.status, events };
    events.push(value);
  }
}

/** `POST /v1/conversations/{id}/messages`: the response once its headers are in (the run started). */
export function postMessage(server: FaultServer, conversationId: string, text: string): Promise<Response> {
  return server.api(`/v1/conversations/${conversationId}/messages`, {
    method: 'POST',
    body: JSON.stringify({ text }),
  });
}

/** `POST /v1/conversations/{id}/messages` and its stream, read to the end. */
export async function sendMessage(server: FaultServer, conversationId: string, text: string) {
  return readStream(await postMessage(server, conversationId, text));
}

/** The run's `run.finished` event on a stream, if it has one. */
export function finishedEvent(events: readonly RunEvent[]) {
  const finished = events.find((event) => event.type === 'run.finished');
  return finished?.type === 'run.finished' ? finished : undefined;
}

/** The message a reader builds from these events, and from only those up to `lastSeq`. */
export function messageFrom(events: readonly RunEvent[], lastSeq = Number.POSITIVE_INFINITY): Message {
  return toMessage(
    reduceAll(
      createMessageState(),
      events.filter((event) => event.type === 'done' || event.seq <= lastSeq),
    ),
  );
}

const FINAL_BLOCK_STATUSES: Record<Block['kind'], readonly string[]> = {
  reasoning: ['done', 'cancelled', 'interrupted'],
  answer: ['done', 'cancelled', 'interrupted'],
  error: ['done', 'cancelled', 'interrupted'],
  tool: ['done', 'failed', 'rejected', 'cancelled', 'interrupted'],
  confirm: ['approved', 'rejected', 'expired'],
};

/** A block that no longer changes: a final status and, except a decided card, an end. */
export function isFinalBlock(block: Block): boolean {
  return FINAL_BLOCK_STATUSES[block.kind].includes(block.status) && block.endedAt !== null;
}

/**
 * What the store holds for a run that has finished, measured against the events its readers got:
 * empty when nothing is wrong. Checks that the run is not `running`, that no tool call is, that its
 * persisted message is the one the events build (whole, or `consistentPrefix` allows the state as
 * of an earlier event, for a store that refused the later writes), and that every block of it has a
 * final status.
 */
export async function storeProblems(
  server: FaultServer,
  runId: string,
  events: readonly RunEvent[],
  options: { consistentPrefix?: boolean } = {},
): Promise<string[]> {
  const problems: string[] = [];
  const run = await server.store.getRun(runId);
  if (run === undefined) return [`run ${runId} is not in the store`];
  if (run.status === 'running' || run.status === 'paused') problems.push(`run is ${run.status}`);
  for (const call of await server.store.listToolCalls(runId))
    if (call.status === 'running' || call.status === 'pending' || call.status === 'awaiting_confirmation')
      problems.push(`tool call ${call.name} is ${call.status}`);
  const stored = (await server.store.listMessages(run.conversationId)).find(
    (message) => message.role === 'assistant' && message.runId === runId,
  );
  if (stored?.role !== 'assistant') {
    if (!options.consistentPrefix) problems.push('no assistant message is stored');
    return problems;
  }
  const message = stored.message;
  const whole = messageFrom(events);
  if (options.consistentPrefix) {
    if (!sameMessage(message, messageFrom(events, message.lastSeq)))
      problems.push(`the stored message (lastSeq ${message.lastSeq}) is not what its events build`);
    if (message.lastSeq === whole.lastSeq) problems.push(...openBlocks(message));
  } else {
    if (!sameMessage(message, whole))
      problems.push(
        `the stored message (lastSeq ${message.lastSeq}) differs from the streamed one (${whole.lastSeq})`,
      );
    problems.push(...openBlocks(message));
  }
  if (message.lastSeq === whole.lastSeq && message.status !== run.status)
    problems.push(`the message says ${message.status}, the run ${run.status}`);
  return problems;
}

function openBlocks(message: Message): string[] {
  return message.blocks
    .filter((block) => !isFinalBlock(block))
    .map((block) => `block ${block.blockId} (${block.kind}) is ${block.status}`);
}

function sameMessage(left: Message, right: Message): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** Counts of outcomes by a key, for asserting a campaign's tallies in one comparison. */
export function tally(keys: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}

/** The campaign's one-line summary, printed only when asked for (`RUNSTREAM_FAULTS_VERBOSE=1`). */
export function summarise(line: string): void {
  if (process.env.RUNSTREAM_FAULTS_VERBOSE === '1') console.log(line);
}
