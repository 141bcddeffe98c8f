import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createOrderService, type JournalEntry, OrderBook } from './order-service.ts';
import { startOrderServiceHttp } from './order-service-http.ts';

/**
 * The order service as a process: over stdio by default (for `{"command": "node", "args":
 * ["--import", "tsx", "src/mcp/test-support/order-service-main.ts"]}`), or with `--http <port>` over
 * Streamable HTTP at `http://127.0.0.1:<port>/mcp`. With `ORDER_SERVICE_JOURNAL=<file>` every
 * journal entry is appended to that file as a JSON line (the stdio tests read it); stdout belongs to
 * the protocol, so the journal never goes there.
 */
const journalPath = process.env.ORDER_SERVICE_JOURNAL;
const journal = (entry: JournalEntry) => {
  if (journalPath) appendFileSync(journalPath, `${JSON.stringify(entry)}\n`);
};
const httpFlag = process.argv.indexOf('--http');
if (httpFlag !== -1) {
  const service = await startOrderServiceHttp(journal, { port: Number(process.argv[httpFlag + 1] ?? 0) });
  process.stderr.write(`order service listening on ${service.url}\n`);
} else {
  await createOrderService(new OrderBook(), journal).connect(new StdioServerTransport());
  process.stderr.write('order service ready on stdio\n');
}
journal({ event: 'started', pid: process.pid });
