import { parseArgs } from 'node:util';
import { type Agent, AgentDefinitionError, loadAgent } from '../agent/index.ts';
import { startServer } from '../node/start-server.ts';
import { StartupError } from '../server/index.ts';
import { DEFAULT_WEB_ROOT, ensureWebBuild } from './build-web.ts';
import { UsageError } from './usage-error.ts';

export const SERVE_USAGE = `Usage:
  runstream serve <agent folder>… [--port 8787] [--host 127.0.0.1] [--db data/runstream.db]

Serves the agents of the folders (each with agent.json and instructions.md; docs/agents.md), the
API and the chat page on one port; the first folder's agent is the default. With no folder, the
current directory when it holds an agent.json. The page is built on first start.

Options (each also an environment variable; the flag wins):
  --port <n>     PORT, default 8787 (0 picks a free port)
  --host <addr>  HOST, default 127.0.0.1
  --db <file>    RUNSTREAM_DB, default data/runstream.db
  --no-web       the API only: no chat page (nothing is built)
  -h, --help     this text`;

export interface ServeArguments {
  folders: string[];
  env: Record<string, string | undefined>;
  web: boolean;
}

/** The folders and the environment `serve` runs with: flags written over the variables they name. */
export function parseServeArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ServeArguments | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      db: { type: 'string' },
      'no-web': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const merged: Record<string, string | undefined> = { ...env };
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65_535)
      throw new UsageError(`--port must be a port number (0–65535), got "${values.port}"`, SERVE_USAGE);
    merged.PORT = values.port;
  }
  if (values.host !== undefined) merged.HOST = values.host;
  if (values.db !== undefined) merged.RUNSTREAM_DB = values.db;
  return { folders: positionals.length > 0 ? positionals : ['.'], env: merged, web: !values['no-web'] };
}

/** `runstream serve` (`npm start`): run until Ctrl-C, then stop runs cleanly and close the file. */
export async function serveCommand(argv: readonly string[] = []): Promise<number> {
  const parsed = parseServeArguments(argv);
  if (parsed === 'help') {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const { folders, env, web } = parsed;
  let agents: Agent[];
  try {
    agents = [];
    for (const folder of folders) agents.push(await loadAgent(folder, { env }));
  } catch (error) {
    if (error instanceof AgentDefinitionError) {
      process.stderr.write(`runstream: ${error.message}\n`);
      if (folders.length === 1 && folders[0] === '.')
        process.stderr.write(
          'runstream: give an agent folder (runstream serve my-agent), or make one: runstream init my-agent\n',
        );
      return 1;
    }
    throw error;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  // The chat page is built on first start and whenever its sources changed since the last build.
  if (web)
    await ensureWebBuild({ outDir: DEFAULT_WEB_ROOT, log: (line) => process.stdout.write(`${line}\n`) });
  try {
    server = await startServer(env, undefined, { agents, ...(web ? { webRoot: DEFAULT_WEB_ROOT } : {}) });
  } catch (error) {
    // The commonest first-run failure deserves a sentence, not a stack trace.
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      process.stderr.write(
        `runstream: port ${env.PORT ?? 8787} is already in use; pick another with --port (or PORT)\n`,
      );
      return 1;
    }
    if (error instanceof StartupError) {
      process.stderr.write(`runstream: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const offline = Object.values(server.modelNames).some(
    (name) => name === 'offline' || name.endsWith('-demo'),
  );
  process.stdout.write(
    [
      '',
      `runstream is listening on ${server.url}`,
      ...(web ? [`chat page: ${server.url}/`] : []),
      ...agents.map(
        (agent, index) =>
          `agent: ${agent.id} (${agent.name})${index === 0 && agents.length > 1 ? ' [default]' : ''}, model ${server.modelNames[agent.id]}`,
      ),
      ...(offline
        ? [
            'offline model: answers from the agent’s own knowledge and tools, no key needed; for a real model set RUNSTREAM_MODEL with OPENAI_BASE_URL and OPENAI_API_KEY, or ANTHROPIC_API_KEY (docs/models.md)',
          ]
        : []),
      `demo user token: ${server.demoToken}`,
      ...(isLoopback(env.HOST) || env.RUNSTREAM_DEMO_LOGIN?.toLowerCase() === 'off'
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
