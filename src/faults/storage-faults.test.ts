import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedChatModel, type ScriptedTurnInput, textTurn } from '../models/index.ts';
import type { RunEvent } from '../protocol/index.ts';
import { RUN_MESSAGES } from '../runtime/agent/run-messages.ts';
import { campaignSize } from '../shared/test-support/campaign-size.ts';
import {
  type FaultServer,
  finishedEvent,
  isFinalBlock,
  messageFrom,
  postMessage,
  readStream,
  sendMessage,
  startFaultServer,
  storeProblems,
  summarise,
  tally,
} from './test-support/fault-server.ts';

const ENDING_NOT_SAVED_MESSAGE = RUN_MESSAGES['zh-CN'].endingNotSaved;

/**
 * Storage fault campaign (issue #13 §2): the SQLite file refuses the writes of runs in progress, over
 * real HTTP with the real engine reporting the error. SQLITE_BUSY from a second connection holding
 * the write lock (the server's busy timeout made short), and SQLITE_FULL from the engine's own page
 * limit (`PRAGMA max_page_count`) and, where this machine lets a test mount one, from a tiny tmpfs
 * that really is full. Each run must finish (never stay `running`), the failed writes must be
 * reported with the engine's error, and the stored message must be the whole ending or an earlier
 * state its events build, never a mix.
 */
/** Runs at once in each case: 10 in the campaign, 4 in `npm test` (see campaign-size.ts). */
const RUNS = campaignSize({ quick: 4, full: 10 });
/** The server's busy timeout: a refused write returns at once instead of stalling the event loop. */
const BUSY_TIMEOUT_MS = 20;

const outcomes: string[] = [];
const started = performance.now();
afterAll(() => {
  summarise(
    `storage-faults: ${outcomes.length} cases × ${RUNS} runs in ${Math.round(performance.now() - started)} ms; ${outcomes.join('; ')}`,
  );
});

/** Every run answers the same text, in parts, at a pace that leaves time to make the store fail. */
function answeringModel(text: string, parts: number, delayMs: number): ScriptedChatModel {
  const chunkSize = Math.ceil(Array.from(text).length / parts);
  const turn: ScriptedTurnInput = { parts: textTurn(text, { chunkSize }), delayMs };
  return new ScriptedChatModel(Array.from({ length: RUNS + 2 }, () => turn));
}

interface StartedRun {
  conversationId: string;
  response: Response;
}

/** `RUNS` messages at once, each in its own conversation; resolves when every run has started. */
async function startRuns(server: FaultServer, text: string): Promise<StartedRun[]> {
  const conversations = await Promise.all(Array.from({ length: RUNS }, () => server.newConversation()));
  return Promise.all(
    conversations.map(async (conversationId) => {
      const response = await postMessage(server, conversationId, text);
      expect(response.status).toBe(200);
      return { conversationId, response };
    }),
  );
}

interface EndedRun {
  conversationId: string;
  runId: string;
  events: RunEvent[];
}

async function readRuns(started: readonly StartedRun[]): Promise<EndedRun[]> {
  return Promise.all(
    started.map(async ({ conversationId, response }) => {
      const { events } = await readStream(response);
      return { conversationId, runId: events[0]?.runId ?? '', events };
    }),
  );
}

/** The failed writes the server reported for each run, as `code message`. */
function reportedErrors(server: FaultServer): string[] {
  return server.persistenceErrors.map(({ error }) => {
    const { code, message } = error as { code?: string; message?: string };
    return `${code} ${message}`;
  });
}

async function waitUntil(check: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The runs whose ending the server gave up on: those it tried to mark `failed` (after its retries of
 * the whole ending). Watched on the real store's method, so the lock can be held until then.
 */
function watchGivingUp(server: FaultServer): Set<string> {
  const gaveUp = new Set<string>();
  const { store } = server;
  const updateRun = store.updateRun.bind(store);
  store.updateRun = (id, patch) => {
    if (patch.status === 'failed') gaveUp.add(id);
    return updateRun(id, patch);
  };
  return gaveUp;
}

/** Runs' outcomes as `streamed → stored`, tallied for the summary and the assertion. */
async function outcomesOf(server: FaultServer, runs: readonly EndedRun[], label: string) {
  const keys = await Promise.all(
    runs.map(async ({ runId, events }) => {
      const stored = await server.store.getRun(runId);
      return `${finishedEvent(events)?.status ?? 'unfinished'} → ${stored?.status ?? 'missing'}`;
    }),
  );
  const counts = tally(keys);
  outcomes.push(
    `${label}: ${Object.entries(counts)
      .map(([key, count]) => `${count}× ${key}`)
      .join(', ')} (${server.persistenceErrors.length} failed writes reported)`,
  );
  return counts;
}

/** The conversation is free again: a next message runs to its end. */
async function expectConversationFree(server: FaultServer, conversationId: string): Promise<void> {
  const next = await sendMessage(server, conversationId, '还在吗？');
  expect(next.status).toBe(200);
  expect(finishedEvent(next.events)?.status).toBe('completed');
}

describe('SQLITE_BUSY: a second connection holds the write lock', () => {
  const answer = '七天无理由退货：商品完好、配件齐全即可申请，运费由买家承担。';

  it('when a message is sent: refused with 503 and Retry-After in the wire error shape and logged, nothing left running', async () => {
    const server = await startFaultServer({
      model: answeringModel(answer, 2, 0),
      configure: (database) => database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`),
    });
    const locker = new Database(server.databasePath);
    try {
      const conversations = await Promise.all(Array.from({ length: RUNS }, () => server.newConversation()));
      locker.exec('BEGIN EXCLUSIVE');
      const refused = await Promise.all(
        conversations.map(async (conversationId) => {
          const response = await postMessage(server, conversationId, '退货政策是什么？');
          return `${response.status} ${response.headers.get('retry-after')} ${JSON.stringify(await response.json())}`;
        }),
      );
      locker.exec('COMMIT');
      const counts = tally(refused);
      outcomes.push(
        `SQLITE_BUSY at the message: ${Object.entries(counts)
          .map(([key, count]) => `${count}× ${key}`)
          .join(', ')}`,
      );
      expect(counts).toEqual({
        '503 1 {"error":{"code":"store_unavailable","message":"the store cannot take this now (busy or full); nothing was saved, try again shortly"}}':
          RUNS,
      });
      // The person gets no detail of the server's insides; the log has the engine's own words.
      expect(server.logLines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual(
        Array.from({ length: RUNS }, () => 'database is locked'),
      );
      expect(await server.store.listRunsByStatus('running')).toEqual([]);
      for (const conversationId of conversations)
        expect(await server.store.listMessages(conversationId)).toEqual([]);
      await expectConversationFree(server, conversations[0] ?? '');
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
      await server.close();
    }
  });

  it('for a moment while the runs stream: writes are refused and retried, every run ends completed, whole', async () => {
    const server = await startFaultServer({
      model: answeringModel(answer, 10, 30),
      configure: (database) => database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`),
    });
    const locker = new Database(server.databasePath);
    try {
      const runsStarted = await startRuns(server, '退货政策是什么？');
      locker.exec('BEGIN EXCLUSIVE');
      setTimeout(() => locker.exec('COMMIT'), 400);
      const runs = await readRuns(runsStarted);
      for (const { runId } of runs) await server.runs.settled(runId);
      expect(await outcomesOf(server, runs, 'SQLITE_BUSY for 0.4 s')).toEqual({
        'completed → completed': RUNS,
      });
      for (const { runId, events } of runs) expect(await storeProblems(server, runId, events)).toEqual([]);
      const errors = reportedErrors(server);
      expect(errors.length).toBeGreaterThan(0);
      expect(new Set(errors)).toEqual(new Set(['SQLITE_BUSY database is locked']));
      await expectConversationFree(server, runs[0]?.conversationId ?? '');
    } finally {
      locker.close();
      await server.close();
    }
  });

  it('through the runs’ endings: they give up, then write the whole ending once the lock is gone', async () => {
    const server = await startFaultServer({
      model: answeringModel(answer, 5, 20),
      configure: (database) => database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`),
    });
    const gaveUp = watchGivingUp(server);
    const locker = new Database(server.databasePath);
    try {
      const runsStarted = await startRuns(server, '退货政策是什么？');
      locker.exec('BEGIN EXCLUSIVE');
      const runs = await readRuns(runsStarted);
      // Held until every run has given up on its ending and been refused its `failed` too, which
      // used to leave the runs `running` for good.
      await waitUntil(() => runs.every(({ runId }) => gaveUp.has(runId)), 'every run to give up');
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const { runId } of runs) expect((await server.store.getRun(runId))?.status).toBe('running');
      locker.exec('COMMIT');
      for (const { runId } of runs) await server.runs.settled(runId);
      expect(await outcomesOf(server, runs, 'SQLITE_BUSY through the endings')).toEqual({
        'completed → completed': RUNS,
      });
      for (const { runId, events } of runs) expect(await storeProblems(server, runId, events)).toEqual([]);
      expect(new Set(reportedErrors(server))).toEqual(new Set(['SQLITE_BUSY database is locked']));
      await expectConversationFree(server, runs[0]?.conversationId ?? '');
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
      await server.close();
    }
  });
});

describe('SQLITE_FULL', () => {
  /** About 30 KB per message: each ending needs pages the file may not grow to. */
  const longAnswer = '七天无理由退货：商品完好、配件齐全即可申请，运费由买家承担。'.repeat(350);

  it('from the page limit: the runs end failed, each stored message is a state its events build, readers after a restart are told', async () => {
    let server = await startFaultServer({ model: answeringModel(longAnswer, 4, 20) });
    try {
      const runsStarted = await startRuns(server, '退货政策是什么？');
      // The engine's own SQLITE_FULL: the file may not grow past the pages it has now.
      const pages = server.database.pragma('page_count', { simple: true }) as number;
      server.database.pragma(`max_page_count = ${pages}`);
      const runs = await readRuns(runsStarted);
      for (const { runId } of runs) await server.runs.settled(runId);
      // Streamed as the model ended them; stored as failed, since their endings never fitted.
      expect(await outcomesOf(server, runs, 'SQLITE_FULL (max_page_count)')).toEqual({
        'completed → failed': RUNS,
      });
      for (const { runId, events } of runs)
        expect(await storeProblems(server, runId, events, { consistentPrefix: true })).toEqual([]);
      expect(new Set(reportedErrors(server))).toEqual(new Set(['SQLITE_FULL database or disk is full']));

      // After a restart (the runs' own logs are gone), a reader of each run gets an ending.
      server = await server.restart();
      for (const { runId } of runs) {
        const followed = await readStream(
          await server.api(`/v1/runs/${runId}/events`, { signal: AbortSignal.timeout(10_000) }),
        );
        // A snapshot of the copy (the store's state, ended as the run record says), then `done`.
        const seen = messageFrom(followed.events);
        expect(seen).toMatchObject({
          status: 'failed',
          error: { code: 'ending_not_saved', message: ENDING_NOT_SAVED_MESSAGE },
        });
        expect(seen.blocks.every(isFinalBlock)).toBe(true);
        expect(seen.blocks.at(-1)).toMatchObject({ kind: 'error', text: ENDING_NOT_SAVED_MESSAGE });
        expect(followed.events.at(-1)?.type).toBe('done');
      }
      // The conversation shows each such message ended as its run did, not running.
      for (const { runId, conversationId } of runs) {
        const view = (await (await server.api(`/v1/conversations/${conversationId}`)).json()) as {
          messages: { runId?: string; status: string }[];
        };
        expect(view.messages.find((message) => message.runId === runId)?.status).toBe('failed');
      }
      await expectConversationFree(server, runs[0]?.conversationId ?? '');
    } finally {
      await server.close();
    }
  });

  it('from a tiny tmpfs that fills up during the runs and is freed after they gave up: endings written whole', async (context) => {
    const disk = mountTinyDisk(8 * 1024 * 1024);
    if ('reason' in disk) {
      outcomes.push(`SQLITE_FULL (tmpfs): skipped, ${disk.reason}`);
      context.skip(`no tmpfs here: ${disk.reason}`);
      return;
    }
    const filler = join(disk.path, 'filler');
    let server: FaultServer | undefined;
    try {
      server = await startFaultServer({ model: answeringModel(longAnswer, 4, 20), directory: disk.path });
      const running = server;
      const gaveUp = watchGivingUp(running);
      const runsStarted = await startRuns(running, '退货政策是什么？');
      fillDisk(filler);
      const runs = await readRuns(runsStarted);
      await waitUntil(() => runs.every(({ runId }) => gaveUp.has(runId)), 'every run to give up');
      await new Promise((resolve) => setTimeout(resolve, 100));
      rmSync(filler);
      for (const { runId } of runs) await running.runs.settled(runId);
      expect(await outcomesOf(running, runs, 'SQLITE_FULL (tmpfs, freed)')).toEqual({
        'completed → completed': RUNS,
      });
      for (const { runId, events } of runs) expect(await storeProblems(running, runId, events)).toEqual([]);
      expect(new Set(reportedErrors(running))).toEqual(new Set(['SQLITE_FULL database or disk is full']));
      await expectConversationFree(running, runs[0]?.conversationId ?? '');
    } finally {
      await server?.close();
      rmSync(filler, { force: true });
      disk.unmount();
    }
  });
});

/**
 * A tmpfs of `bytes` on a fresh folder, or why there is none (not root, or no mount permission in
 * this container): the case is then skipped, saying so, and the page limit above stands in for it.
 */
function mountTinyDisk(bytes: number): { path: string; unmount: () => void } | { reason: string } {
  if (process.platform !== 'linux') return { reason: `not Linux (${process.platform})` };
  if (process.getuid?.() !== 0) return { reason: 'not root' };
  const path = mkdtempSync(join(tmpdir(), 'runstream-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(path);
    return { reason: `mount refused: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}` };
  }
  return {
    path,
    unmount() {
      execFileSync('umount', [path], { stdio: 'pipe' });
      rmdirSync(path);
    },
  };
}

/** Write a file until the file system has no byte left (ENOSPC); bounded by the disk's size. */
function fillDisk(path: string): void {
  const { bsize, blocks } = statfsSync(path.replace(/\/[^/]+$/, ''));
  const chunk = Buffer.alloc(64 * 1024);
  const descriptor = openSync(path, 'w');
  try {
    for (let written = 0; written <= bsize * blocks; ) {
      try {
        written += writeSync(descriptor, chunk);
      } catch (error) {
        if ((error as { code?: string }).code === 'ENOSPC') return;
        throw error;
      }
    }
    throw new Error(`${path} never filled its disk`);
  } finally {
    closeSync(descriptor);
  }
}
