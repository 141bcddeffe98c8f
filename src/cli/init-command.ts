import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AGENT_TEMPLATE } from './agent-template.ts';
import { UsageError } from './usage-error.ts';

export const INIT_USAGE = `Usage:
  runstream init <folder> [--id <agent id>] [--force]

Writes a working agent folder: agent.json, instructions.md, one knowledge file, one skill, a read
tool and a write tool with a labelled confirmation card (tools/*.mjs), and a test of the whole run
with the scripted model (node --test <folder>/test). Then: runstream serve <folder>.

Options:
  --id <id>   the agent's id (default: the folder's name, lowercased)
  --force     write into a folder that is not empty (files of the same name are replaced)
  -h, --help  this text`;

/** `runstream init <folder>`: a new agent folder that works as written. Returns the exit code. */
export async function initCommand(
  argv: readonly string[],
  output: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      id: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    output.write(`${INIT_USAGE}\n`);
    return 0;
  }
  const [folder, ...extra] = positionals;
  if (folder === undefined)
    throw new UsageError('init needs a folder, e.g. runstream init my-agent', INIT_USAGE);
  if (extra.length > 0) throw new UsageError(`init takes one folder, got ${positionals.length}`, INIT_USAGE);
  const directory = resolve(folder);
  const id = values.id ?? agentIdOf(basename(directory));
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(id))
    throw new UsageError(
      `"${id}" is not an agent id: lowercase letters, digits, _ or - (64 at most); give one with --id`,
      INIT_USAGE,
    );
  if (existsSync(directory) && readdirSync(directory).length > 0 && !values.force) {
    process.stderr.write(`runstream: ${folder} is not empty; pick another folder or add --force\n`);
    return 1;
  }
  for (const [path, text] of Object.entries(AGENT_TEMPLATE)) {
    const target = join(directory, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text.replaceAll('{{id}}', id));
  }
  const nearby = relative(process.cwd(), directory);
  const shown = nearby === '' ? '.' : nearby.startsWith('..') ? directory : nearby;
  output.write(
    [
      `wrote the agent "${id}" to ${shown}/:`,
      ...Object.keys(AGENT_TEMPLATE).map((path) => `  ${path}`),
      '',
      'next:',
      `  runstream agents check ${shown}     what it found: documents, skills, tools`,
      `  runstream serve ${shown}            the chat page at http://127.0.0.1:8787`,
      `  node --test ${shown}/test           the scripted test of a whole run`,
      '',
    ].join('\n'),
  );
  return 0;
}

/** A folder's name as an agent id: lowercase, anything else a dash. */
function agentIdOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[-_]+|[-_]+$/g, '')
      .slice(0, 64) || 'my-agent'
  );
}
