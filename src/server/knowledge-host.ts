import type { Agent } from '../agent/agent.ts';
import type { KnowledgeSearch } from '../agent/search-knowledge-tool.ts';
import type { KnowledgeSources } from '../retrieval/knowledge-sources.ts';

/** An agent's knowledge, ready: what `search_knowledge` searches and the documents it cites. */
export interface OpenedKnowledge extends KnowledgeSearch {
  readonly sources: KnowledgeSources;
}

/**
 * Where agents' knowledge bases live and are built (`sqliteKnowledge` in `runstream/node`: the
 * indexes in a SQLite file, the documents read from the agent's folders). Kept behind this
 * interface because building one reads files and runs native text analysis, which the
 * Web-standard core (`createRunstream`) must not import.
 */
export interface KnowledgeHost {
  /**
   * The agent's knowledge, ingested (incrementally: what did not change costs nothing) into its own
   * namespace, so two agents never see each other's documents.
   */
  open(agent: Agent, log: (line: Record<string, unknown>) => void): Promise<OpenedKnowledge>;
  close?(): Promise<void> | void;
}
