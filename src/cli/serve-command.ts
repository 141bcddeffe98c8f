import { startServer } from '../server/index.ts';

/** `runstream serve` (`npm start`): run until Ctrl-C, then stop runs cleanly and close the file. */
export async function serveCommand(): Promise<number> {
  const server = await startServer();
  process.stdout.write(
    [
      '',
      `runstream is listening on ${server.url}`,
      `model: ${server.modelName}${server.modelName === 'novashop-demo' ? ' (the offline demo model; set OPENAI_BASE_URL, OPENAI_API_KEY and RUNSTREAM_MODEL for a real one)' : ''}`,
      `demo user token: ${server.demoToken}`,
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
