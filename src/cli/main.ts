import { RetrievalError } from '../retrieval/index.ts';
import { ensureWebBuild } from './build-web.ts';
import { CHAT_USAGE, chatCommand } from './chat-command.ts';
import { HOST_USAGE, hostCommand } from './host-command.ts';
import { KB_USAGE, kbCommand } from './kb-command.ts';
import { serveCommand } from './serve-command.ts';
import { UsageError } from './usage-error.ts';
import { USERS_USAGE, usersCommand } from './users-command.ts';

const USAGE = `runstream: agent runs people can watch, stop, resume and approve.

Usage:
  runstream serve                             the server, the chat page and the NovaShop demo on
                                              http://127.0.0.1:8787 (builds the page first when needed)
  runstream build-web                         build the chat page into dist/web (npm run build:web)

${CHAT_USAGE}

${HOST_USAGE}

${KB_USAGE}

${USERS_USAGE}`;

/** The `runstream` command. Returns the exit code: 0 done, 1 failed, 2 called wrongly. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'kb':
        return await kbCommand(rest);
      case 'serve':
        return await serveCommand();
      case 'build-web': {
        const result = await ensureWebBuild({
          force: true,
          log: (line) => process.stdout.write(`${line}\n`),
        });
        process.stdout.write(`${result.root}\n`);
        return 0;
      }
      case 'chat':
        return await chatCommand(rest);
      case 'host':
        return await hostCommand(rest);
      case 'users':
        return await usersCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`runstream: ${error.message}\n\n${error.usage ?? USAGE}\n`);
      return 2;
    }
    if (error instanceof RetrievalError) {
      process.stderr.write(`runstream: ${error.message}\n`);
      return 1;
    }
    if (error instanceof TypeError && (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`runstream: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
