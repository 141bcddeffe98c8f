import { loadAgent } from '../../agent/index.ts';
import { startServer } from '../../node/start-server.ts';
import { NOVASHOP_EXAMPLE } from './start-test-server.ts';

/**
 * One server instance as its own process, for the multi-instance tests: configured entirely by
 * the environment (as `npm start` is), it prints `{url, token}` on its first stdout line and its
 * log lines on stderr, and shuts down cleanly on SIGTERM. `kill -9` is the crash.
 *
 * With `RUNSTREAM_TEST_STANDBY=1` it is a warm standby (`standbyServerProcess`): its modules are
 * loaded, but it opens nothing (no database, no port) until a line arrives on stdin.
 */
if (process.env.RUNSTREAM_TEST_STANDBY === '1') {
  // Warm: the example's own modules (its agent.ts, demo model, order tables) load now, as the
  // server's do, so a start after a crash only opens what the crash left.
  await import(new URL('agent.ts', `file://${NOVASHOP_EXAMPLE}`).href);
  await waitForStart();
}
const server = await startServer(process.env, (line) => process.stderr.write(`${JSON.stringify(line)}\n`), {
  agents: [await loadAgent(NOVASHOP_EXAMPLE, { env: process.env })],
});
process.stdout.write(`${JSON.stringify({ url: server.url, token: server.demoToken })}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

async function waitForStart(): Promise<void> {
  // Leaving the loop destroys stdin, so it keeps nothing alive afterwards.
  for await (const _line of process.stdin) return;
  // stdin closed without a start: whoever kept this standby is gone.
  process.exit(0);
}
