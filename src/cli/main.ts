import { AgentDefinitionError } from '../agent/index.ts';
import { RetrievalError } from '../retrieval/index.ts';
import { AGENTS_USAGE, agentsCommand } from './agents-command.ts';
import { ensureWebBuild } from './build-web.ts';
import { CHAT_USAGE, chatCommand } from './chat-command.ts';
import { HOST_USAGE, hostCommand } from './host-command.ts';
import { INIT_USAGE, initCommand } from './init-command.ts';
import { KB_USAGE, kbCommand } from './kb-command.ts';
import { SERVE_USAGE, serveCommand } from './serve-command.ts';
import { UsageError } from './usage-error.ts';
import { USERS_USAGE, usersCommand } from './users-command.ts';

const USAGE = `runstream: agent runs people can watch, stop, resume and approve.

Usage:
  runstream init <folder>                     write a working agent folder to start from
  runstream serve <agent folder>…             the server, the chat page and the agents on
                                              http://127.0.0.1:8787 (builds the page first when needed)
  runstream agents check <agent folder>…      what a folder holds, or its errors with file and line
  runstream build-web                         build the chat page into dist/web (npm run build:web)
  runstream <command> --help                  the command's own usage

${INIT_USAGE}

${SERVE_USAGE}

${AGENTS_USAGE}

${CHAT_USAGE}

${HOST_USAGE}

${KB_USAGE}

${USERS_USAGE}`;

const BUILD_WEB_USAGE = `Usage:
  runstream build-web

Builds the chat page into dist/web (what npm run build:web does); serve builds it when needed.`;

/** Each command's own usage, for `--help` and for a flag it does not know. */
const COMMAND_USAGE: Readonly<Record<string, string>> = {
  init: INIT_USAGE,
  serve: SERVE_USAGE,
  agents: AGENTS_USAGE,
  'build-web': BUILD_WEB_USAGE,
  chat: CHAT_USAGE,
  host: HOST_USAGE,
  kb: KB_USAGE,
  users: USERS_USAGE,
};

/**
 * Where a command writes: the process's own streams from bin/runstream.mjs, or a test's, which runs
 * the commands in its own process instead of starting one per case.
 */
export interface CommandIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WritableStream;
}

/** The `runstream` command. Returns the exit code: 0 done, 1 failed, 2 called wrongly. */
export async function main(
  argv: string[],
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const [command, ...rest] = argv;
  const usage = command === undefined ? undefined : COMMAND_USAGE[command];
  // `--help` anywhere before a `--` asks for the command's usage, before anything it would do (kb,
  // agents, init and serve answer it themselves, kb per subcommand).
  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  const answersHelpItself = ['kb', 'agents', 'init', 'serve'].includes(command ?? '');
  if (usage !== undefined && !answersHelpItself && (options.includes('--help') || options.includes('-h'))) {
    io.stdout.write(`${usage}\n`);
    return 0;
  }
  try {
    switch (command) {
      case 'kb':
        return await kbCommand(rest, io.stdout);
      case 'serve':
        return await serveCommand(rest);
      case 'init':
        return await initCommand(rest, io.stdout);
      case 'agents':
        return await agentsCommand(rest, io.stdout, io.stderr);
      case 'build-web': {
        if (rest.length > 0)
          throw new UsageError(`build-web takes no arguments, got "${rest.join(' ')}"`, BUILD_WEB_USAGE);
        const result = await ensureWebBuild({
          force: true,
          log: (line) => io.stdout.write(`${line}\n`),
        });
        io.stdout.write(`${result.root}\n`);
        return 0;
      }
      case 'chat':
        return await chatCommand(rest, io.stdout);
      case 'host':
        return await hostCommand(rest, io);
      case 'users':
        return await usersCommand(rest, io.stdout);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`runstream: ${error.message}\n\n${error.usage ?? USAGE}\n`);
      return 2;
    }
    if (error instanceof RetrievalError || error instanceof AgentDefinitionError) {
      io.stderr.write(`runstream: ${error.message}\n`);
      return 1;
    }
    if (error instanceof TypeError && (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      io.stderr.write(`runstream: ${error.message}\n\n${usage ?? USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
