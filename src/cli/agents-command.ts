import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type Database from 'better-sqlite3';
import { type Agent, AgentDefinitionError, loadAgent, resolveAgent } from '../agent/index.ts';
import { ScriptedChatModel } from '../models/index.ts';
import { openKnowledgeBase } from '../retrieval/index.ts';
import { createTextAnalyzer } from '../retrieval/text/index.ts';
import { loadBetterSqlite3 } from '../store/index.ts';
import { UsageError } from './usage-error.ts';

export const AGENTS_USAGE = `Usage:
  runstream agents check <agent folder>…

Loads each folder as the server would (agent.json, instructions.md, knowledge/, skills/, mcp.json,
tools/, agent.ts), ingests its knowledge into memory and connects its MCP servers, then prints what
it found: documents and clauses, skills and the tools each unlocks, tools and whether a call needs
approval. A problem is printed with its file and line; the exit code is 1 when any folder has one.

Options:
  -h, --help  this text`;

/** `runstream agents check <dir…>`. Returns the exit code. */
export async function agentsCommand(
  argv: readonly string[],
  output: NodeJS.WritableStream = process.stdout,
  errors: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    output.write(`${AGENTS_USAGE}\n`);
    return subcommand === undefined ? 2 : 0;
  }
  if (subcommand !== 'check') throw new UsageError(`unknown agents command "${subcommand}"`, AGENTS_USAGE);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: { help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    output.write(`${AGENTS_USAGE}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('agents check needs a folder', AGENTS_USAGE);
  let failed = false;
  for (const folder of positionals) {
    try {
      output.write(await checkAgentFolder(folder));
    } catch (error) {
      if (!(error instanceof AgentDefinitionError)) throw error;
      failed = true;
      errors.write(`${folder}: error: ${error.message}\n`);
    }
  }
  return failed ? 1 : 0;
}

/** What one folder holds, as lines of text; an `AgentDefinitionError` for what does not add up. */
export async function checkAgentFolder(folder: string): Promise<string> {
  // What a folder's agent.ts opens (its own tables) goes to a throwaway file, never the server's.
  const scratch = mkdtempSync(join(tmpdir(), 'runstream-check-'));
  const agent = await loadAgent(folder, {
    env: { ...process.env, RUNSTREAM_DB: join(scratch, 'check.db') },
  }).catch((error: unknown) => {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  });
  const database = new (loadBetterSqlite3())(':memory:');
  try {
    const knowledge = agent.knowledge === undefined ? undefined : await ingestInMemory(agent, database);
    const handle = await resolveAgent(agent, {
      // Nothing is asked of the model: checking needs no key and no network.
      model: new ScriptedChatModel([]),
      ...(knowledge === undefined ? {} : { knowledge: knowledge.base }),
    });
    try {
      const { tools, skills } = handle.agent;
      const lines = [
        `${agent.id} (${agent.name}), ${agent.language}, at ${relative(process.cwd(), agent.directory) || '.'}`,
        `  instructions: ${agent.instructions.length} characters`,
        knowledge === undefined
          ? '  knowledge: none (no knowledge/ folder)'
          : `  knowledge: ${knowledge.documents} documents, ${knowledge.clauses} clauses${agent.knowledge?.synonyms ? ', synonyms.txt' : ''}`,
        skills.length === 0 ? '  skills: none' : '  skills:',
        ...skills.map(
          (skill) =>
            `    ${skill.name} (${skill.title})${skill.unlocksTools.length > 0 ? ` unlocks ${skill.unlocksTools.join(', ')}` : ''}`,
        ),
        tools.length === 0 ? '  tools: none' : '  tools:',
        ...tools.map((tool) => {
          const approval =
            tool.effect === 'read'
              ? 'runs without approval'
              : tool.needsApproval
                ? 'approval decided per call'
                : 'needs approval';
          const skill = tool.requiresSkill === undefined ? '' : `, after ${tool.requiresSkill}`;
          return `    ${tool.name} (${tool.title}): ${approval}${skill}`;
        }),
        ...(Object.keys(agent.mcpServers).length > 0
          ? [`  mcp servers: ${Object.keys(agent.mcpServers).join(', ')} (connected)`]
          : []),
        '',
      ];
      return `${lines.join('\n')}\n`;
    } finally {
      await handle.close();
    }
  } finally {
    database.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function ingestInMemory(agent: Agent, database: Database.Database) {
  const knowledge = agent.knowledge;
  if (knowledge === undefined) return undefined;
  const synonyms = knowledge.synonyms === undefined ? '' : readFileSync(knowledge.synonyms, 'utf8');
  const base = await openKnowledgeBase(
    database,
    {},
    {
      namespace: agent.id,
      analyzer: createTextAnalyzer(synonyms === '' ? {} : { synonyms }),
    },
  );
  const summary = await base.ingest([...knowledge.dirs], { baseDirectory: agent.directory });
  return { base, documents: summary.documents.added, clauses: summary.chunks.added };
}
