import { readFileSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import type { Agent } from '../agent/index.ts';
import { openKnowledgeBase } from '../retrieval/index.ts';
import { createTextAnalyzer } from '../retrieval/text/index.ts';
import type { KnowledgeHost, OpenedKnowledge } from '../server/knowledge-host.ts';
import { StartupError } from '../server/startup-error.ts';
import { openDatabase } from '../store/index.ts';

export interface SqliteKnowledgeOptions {
  /**
   * Embedding and reranking settings (`RUNSTREAM_EMBEDDINGS_*`, `RUNSTREAM_RERANK_*`, see
   * docs/retrieval.md). Default: `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Agents' knowledge bases in a SQLite file: each agent's documents ingested into its own namespace
 * when the runstream opens (incremental: unchanged files cost nothing, another agent's documents
 * are never touched), searched with embeddings and keywords. Give a path (the file is created) or
 * an open `better-sqlite3` database (closed by its owner, not here).
 */
export function sqliteKnowledge(
  file: string | Database,
  options: SqliteKnowledgeOptions = {},
): KnowledgeHost & { close(): void } {
  const owned = typeof file === 'string';
  let database: Database | undefined = owned ? undefined : file;
  const env = options.env ?? process.env;
  return {
    async open(agent: Agent, log: (line: Record<string, unknown>) => void): Promise<OpenedKnowledge> {
      database ??= openDatabase(file as string);
      return openAgentKnowledge(database, agent, env, log);
    },
    close() {
      if (owned) database?.close();
      database = undefined;
    },
  };
}

async function openAgentKnowledge(
  database: Database,
  agent: Agent,
  env: Readonly<Record<string, string | undefined>>,
  log: (line: Record<string, unknown>) => void,
): Promise<OpenedKnowledge> {
  const knowledge = agent.knowledge;
  if (knowledge === undefined) throw new TypeError(`the agent ${agent.id} has no knowledge to open`);
  let synonyms = '';
  if (knowledge.synonyms !== undefined) {
    try {
      synonyms = readFileSync(knowledge.synonyms, 'utf8');
    } catch (error) {
      throw new StartupError(
        `${knowledge.synonyms}: cannot read the synonym table (${(error as Error).message})`,
      );
    }
  }
  const base = await openKnowledgeBase(database, env, {
    namespace: agent.id,
    analyzer: createTextAnalyzer(synonyms === '' ? {} : { synonyms }),
  });
  const summary = await base.ingest([...knowledge.dirs], { baseDirectory: agent.directory });
  log({ level: 'info', message: 'knowledge ready', agent: agent.id, ...summaryLine(summary) });
  return base;
}

function summaryLine(summary: unknown): Record<string, unknown> {
  return summary !== null && typeof summary === 'object' ? { ...(summary as Record<string, unknown>) } : {};
}
