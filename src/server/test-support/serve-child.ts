import { startServer } from '../start-server.ts';

/**
 * One server instance as its own process, for the multi-instance tests: configured entirely by
 * the environment (as `npm start` is), it prints `{url, token}` on its first stdout line and its
 * log lines on stderr, and shuts down cleanly on SIGTERM. `kill -9` is the crash.
 */
const server = await startServer(process.env, (line) => process.stderr.write(`${JSON.stringify(line)}\n`));
process.stdout.write(`${JSON.stringify({ url: server.url, token: server.demoToken })}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
