/**
 * One contender in the cross-process race of `sqlite-run-store.test.ts`: opens the shared file, says
 * `ready`, spins until the go file appears, then decides and claims the same tool call as every other
 * contender, and prints what it got as one JSON line.
 * Usage: race-child.ts <db> <runId> <toolCallId> <approve|reject> <goFile>
 */
import { existsSync } from 'node:fs';
import { openDatabase } from '../open-database.ts';
import { SqliteRunStore } from '../sqlite-run-store.ts';

const [path, runId, toolCallId, verdict, goFile] = process.argv.slice(2);
if (path === undefined || runId === undefined || toolCallId === undefined || goFile === undefined)
  throw new Error('usage: race-child.ts <db> <runId> <toolCallId> <approve|reject> <goFile>');
const database = openDatabase(path);
const store = new SqliteRunStore(database);
process.stdout.write('ready\n');
// Spin rather than watch: every contender should hit the file within the same millisecond.
while (!existsSync(goFile)) {
  // waiting for the parent's signal
}
const decided = await store.decide(runId, toolCallId, {
  decision: verdict === 'reject' ? 'reject' : 'approve',
  decidedAt: Date.now(),
  note: `pid ${process.pid}`,
});
const claimed = await store.claimExecution(runId, toolCallId);
database.close();
process.stdout.write(
  `${JSON.stringify({ applied: decided.applied, decision: decided.decision, claimed })}\n`,
);
