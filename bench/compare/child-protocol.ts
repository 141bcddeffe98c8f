/**
 * What a contender's child process of `npm run bench:compare` must do, and a helper that does the
 * generic part. A contender child:
 *
 * 1. starts an HTTP server on an ephemeral port of 127.0.0.1 and prints its base URL as the FIRST line
 *    of stdout (anything it prints later is forwarded with a prefix);
 * 2. answers the parent's requests over the Node IPC channel (`process.send`), one `ChildCall` at a time,
 *    each with a `ChildReply` of the same `id`: `workload`, `prepare`, `settle` and `stats`;
 * 3. exits when the IPC channel closes (the parent ended, normally or not).
 *
 * `runChild` below implements 2 and 3 for a child that imports it (any Node that runs TypeScript
 * through `tsx`). A child in another language or runtime only has to speak the same messages.
 */
import { readFile } from 'node:fs/promises';
import type { RunEvent } from '../../src/protocol/index.ts';
import type { ClientRequest } from '../server-bench-client.ts';

/** The run every contender streams, captured once from runstream itself (see `compare-bench.ts`). */
export interface Workload {
  /** The SSE `retry:` runstream sends before its first event, in ms. */
  retryMs: number;
  /** The events of one run as runstream streamed them, ending with `done`. */
  events: RunEvent[];
}

export interface ChildStats {
  /** `process.cpuUsage()` of the child: all its threads, µs since it started. */
  cpuUserMicros: number;
  cpuSystemMicros: number;
  /** `process.memoryUsage().rss`, bytes. */
  rss: number;
}

export type ChildCall =
  /** Read the workload (a JSON `Workload`) from this file; a child that makes its own run may ignore it. */
  | { id: number; method: 'workload'; file: string }
  /** The requests that start `n` streams, one each; runstream creates `n` conversations for them. */
  | { id: number; method: 'prepare'; n: number }
  /** Resolve once the work of these runs (ids from `x-runstream-run-id`) is finished, e.g. persisted. */
  | { id: number; method: 'settle'; runIds: string[] }
  | { id: number; method: 'stats' }
  /** runstream only: the events of a run it served, ending with `done`, to make the workload. */
  | { id: number; method: 'events'; runId: string };

export type ChildReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export interface ChildHandlers {
  workload?(workload: Workload): void | Promise<void>;
  prepare(n: number): ClientRequest[] | Promise<ClientRequest[]>;
  settle?(runIds: readonly string[]): Promise<void>;
  events?(runId: string): Promise<RunEvent[]>;
  /** Stops the server and frees what it holds; called once when the parent goes away. */
  close(): Promise<void>;
}

export async function readWorkload(file: string): Promise<Workload> {
  return JSON.parse(await readFile(file, 'utf8')) as Workload;
}

async function answer(call: ChildCall, handlers: ChildHandlers): Promise<unknown> {
  switch (call.method) {
    case 'workload':
      await handlers.workload?.(await readWorkload(call.file));
      return null;
    case 'prepare':
      return handlers.prepare(call.n);
    case 'settle':
      await handlers.settle?.(call.runIds);
      return null;
    case 'stats': {
      const cpu = process.cpuUsage();
      const stats: ChildStats = {
        cpuUserMicros: cpu.user,
        cpuSystemMicros: cpu.system,
        rss: process.memoryUsage().rss,
      };
      return stats;
    }
    case 'events':
      if (!handlers.events) throw new Error('this contender does not record events');
      return handlers.events(call.runId);
  }
}

/** Prints the URL as the first stdout line and serves the parent's calls until it goes away. */
export function runChild(url: string, handlers: ChildHandlers): void {
  if (!process.send) throw new Error('a contender child must be started with an IPC channel');
  process.on('message', (call: ChildCall) => {
    void answer(call, handlers).then(
      (result) => process.send?.({ id: call.id, ok: true, result } satisfies ChildReply),
      (error: unknown) =>
        process.send?.({
          id: call.id,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies ChildReply),
    );
  });
  process.once('disconnect', () => {
    const exit = () => process.exit(0);
    // Never hang on the way out: a server with stuck connections still exits.
    setTimeout(exit, 2_000).unref();
    void handlers.close().then(exit, exit);
  });
  process.stdout.write(`${url}\n`);
}
