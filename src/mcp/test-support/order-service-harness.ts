import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from '../mcp-config.ts';
import type { JournalEntry } from './order-service.ts';
import { type OrderServiceHttp, startOrderServiceHttp } from './order-service-http.ts';

/** The order service's process entry (stdio by default, `--http <port>` for HTTP). */
export const ORDER_SERVICE_MAIN = fileURLToPath(new URL('./order-service-main.ts', import.meta.url));
/** The repository root: where `--import tsx` resolves. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A running order service and how to reach and observe it, whatever the transport. */
export interface OrderServiceHarness {
  transport: 'stdio' | 'http';
  /** The server's entry in an `mcpServers` configuration. */
  config: McpServerConfig;
  /** What reached the service so far, oldest first. */
  journal(): JournalEntry[];
  /** Make the service go away under runstream's feet (kill the process, stop the HTTP server). */
  crash(): Promise<void>;
  /** Bring it back after `crash` (HTTP; a stdio service is respawned by the client itself). */
  revive(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The order service as a child process over stdio (run with tsx, as runstream would run any
 * `command`); its journal goes to a file the test reads.
 */
export function stdioOrderService(extra: Partial<McpStdioServerConfig> = {}): OrderServiceHarness {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-mcp-'));
  const journalPath = join(directory, 'journal.jsonl');
  writeFileSync(journalPath, '');
  const journal = () =>
    readFileSync(journalPath, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as JournalEntry);
  return {
    transport: 'stdio',
    config: {
      command: process.execPath,
      args: ['--import', 'tsx', ORDER_SERVICE_MAIN],
      env: { ORDER_SERVICE_JOURNAL: journalPath },
      cwd: REPOSITORY_ROOT,
      ...extra,
    },
    journal,
    async crash() {
      const started = journal().filter((entry) => entry.event === 'started');
      const last = started.at(-1);
      if (last === undefined) throw new Error('the stdio order service never started');
      // The process this test's client spawned, ended by its own pid.
      process.kill(last.pid, 'SIGKILL');
    },
    async revive() {},
    async close() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export interface HttpOrderServiceHarness extends OrderServiceHarness {
  /** Requests refused with 404 for an unknown session. */
  sessionsRefused(): number;
  /** Forget every session, as a server restarted behind a load balancer would. */
  forgetSessions(): void;
  /** The `authorization` header of every request the service received. */
  authorizations(): (string | undefined)[];
}

/** The order service in this process over Streamable HTTP on an ephemeral port. */
export async function httpOrderService(
  extra: Partial<McpHttpServerConfig> = {},
  options: { standaloneSse?: boolean } = {},
): Promise<HttpOrderServiceHarness> {
  const entries: JournalEntry[] = [];
  const journal = (entry: JournalEntry) => entries.push(entry);
  let refusedBefore = 0;
  const authorizationsBefore: (string | undefined)[] = [];
  let service: OrderServiceHttp | undefined = await startOrderServiceHttp(journal, options);
  const { url, book } = service;
  const port = Number(new URL(url).port);
  return {
    transport: 'http',
    config: { url, ...extra },
    journal: () => [...entries],
    sessionsRefused: () => refusedBefore + (service?.sessionsRefused ?? 0),
    forgetSessions: () => service?.forgetSessions(),
    authorizations: () => [...authorizationsBefore, ...(service?.authorizations ?? [])],
    async crash() {
      refusedBefore += service?.sessionsRefused ?? 0;
      authorizationsBefore.push(...(service?.authorizations ?? []));
      await service?.crash();
      service = undefined;
    },
    async revive() {
      // Same port, same orders; its sessions are gone, as after a restart.
      service = await startOrderServiceHttp(journal, { ...options, port, book });
    },
    async close() {
      await service?.close();
    },
  };
}
