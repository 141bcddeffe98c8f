import { StartupError, startServer } from '../server/index.ts';
import { DEFAULT_WEB_ROOT, ensureWebBuild } from './build-web.ts';

/** `runstream serve` (`npm start`): run until Ctrl-C, then stop runs cleanly and close the file. */
export async function serveCommand(): Promise<number> {
  let server: Awaited<ReturnType<typeof startServer>>;
  // The chat page is built on first start and whenever its sources changed since the last build.
  await ensureWebBuild({ outDir: DEFAULT_WEB_ROOT, log: (line) => process.stdout.write(`${line}\n`) });
  try {
    server = await startServer(process.env, undefined, { webRoot: DEFAULT_WEB_ROOT });
  } catch (error) {
    // The commonest first-run failure deserves a sentence, not a stack trace.
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      process.stderr.write(
        `runstream: port ${process.env.PORT ?? 8787} is already in use; set PORT to another one\n`,
      );
      return 1;
    }
    if (error instanceof StartupError) {
      process.stderr.write(`runstream: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  process.stdout.write(
    [
      '',
      `runstream is listening on ${server.url}`,
      `chat page: ${server.url}/`,
      `model: ${server.modelName}${server.modelName === 'novashop-demo' ? ' (the offline demo model; for a real one set RUNSTREAM_MODEL with OPENAI_BASE_URL and OPENAI_API_KEY, or ANTHROPIC_API_KEY: docs/models.md)' : ''}`,
      `demo user token: ${server.demoToken}`,
      ...(isLoopback(process.env.HOST) || process.env.RUNSTREAM_DEMO_LOGIN?.toLowerCase() === 'off'
        ? []
        : [
            'warning: HOST is not a loopback address and the demo login is on: every visitor shares the demo user.',
            '         Put a real login in front and set RUNSTREAM_DEMO_LOGIN=off (docs/api.md).',
          ]),
      `try: curl -N -X POST ${server.url}/v1/conversations -H 'authorization: Bearer ${server.demoToken}' -d '{}'`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

function isLoopback(host: string | undefined): boolean {
  return (
    host === undefined || host === '' || host === 'localhost' || host === '::1' || host.startsWith('127.')
  );
}
