import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import type { IngestSummary, KnowledgeBase } from '../../retrieval/index.ts';
import { createFileKnowledgeSources, type KnowledgeSources } from '../../retrieval/knowledge-sources.ts';
import { createTextAnalyzer, type TextAnalyzer } from '../../retrieval/text/index.ts';
import type { Skill } from '../../runtime/skill.ts';
import type { AnyTool } from '../../runtime/tool.ts';
import { loadNovaShopSkills } from './load-novashop-skills.ts';
import { NovaShopDemoModel } from './novashop-demo-model.ts';
import type { OrderRepository } from './order-repository.ts';
import type { PostgresOrderRepository } from './postgres-order-repository.ts';
import { type SeedSummary, seedNovaShop, seedNovaShopAsync } from './seed-novashop.ts';
import { SqliteOrderRepository } from './sqlite-order-repository.ts';
import { createNovaShopTools } from './tools/create-novashop-tools.ts';
import type { KnowledgeSearch } from './tools/search-knowledge.ts';

/** This folder: ingest the knowledge relative to it, so citations read `knowledge/policies/…#L21`. */
export const NOVASHOP_DIRECTORY = fileURLToPath(new URL('.', import.meta.url));
/** The policies, product pages and FAQ `search_knowledge` searches. */
export const NOVASHOP_KNOWLEDGE_DIRECTORY = fileURLToPath(new URL('./knowledge/', import.meta.url));

/** NovaShop's own synonym table and brand words: a per-domain resource, not in the default analyser. */
export const NOVASHOP_SYNONYMS_PATH = fileURLToPath(new URL('./synonyms.txt', import.meta.url));

let novaShopAnalyzer: TextAnalyzer | undefined;

/** The general analyser plus NovaShop's synonym table, for the NovaShop knowledge base. */
export function createNovaShopAnalyzer(): TextAnalyzer {
  novaShopAnalyzer ??= createTextAnalyzer({ synonyms: readFileSync(NOVASHOP_SYNONYMS_PATH, 'utf8') });
  return novaShopAnalyzer;
}

/** Ingest the NovaShop knowledge (incremental: unchanged files cost nothing on the next start). */
export function ingestNovaShopKnowledge(knowledge: Pick<KnowledgeBase, 'ingest'>): Promise<IngestSummary> {
  return knowledge.ingest([NOVASHOP_KNOWLEDGE_DIRECTORY], { baseDirectory: NOVASHOP_DIRECTORY });
}

/**
 * The documents behind the citations: exactly the files `ingestNovaShopKnowledge` ingests, by the
 * same paths (`knowledge/policies/order-changes.md`); any other path reads as undefined.
 */
export function createNovaShopKnowledgeSources(): KnowledgeSources {
  return createFileKnowledgeSources([NOVASHOP_KNOWLEDGE_DIRECTORY], { baseDirectory: NOVASHOP_DIRECTORY });
}

export interface NovaShopDomainOptions {
  /** The product's SQLite file; the order tables are created in it on first use. */
  database: Database;
  /**
   * Orders in PostgreSQL instead (`PostgresOrderRepository.open`), shared by every instance; the
   * SQLite file then keeps only this instance's knowledge base.
   */
  orders?: PostgresOrderRepository;
  /** The knowledge base (`openKnowledgeBase(database)`), or anything with its `search`. */
  knowledge: KnowledgeSearch;
  /** Pause before each part the demo model streams. Default 0. */
  modelDelayMs?: number;
  /** Latency of each tool call, half before its work and half after (see `NovaShopToolsOptions`). Default 0. */
  toolDelayMs?: number;
}

export interface NovaShopDomain {
  tools: AnyTool[];
  skills: Skill[];
  orders: OrderRepository;
  /** The offline demo model; replace it with a real one (see `createChatModelFromEnv`). */
  model: NovaShopDemoModel;
  /** The whole source documents the citations of `search_knowledge` point to. */
  sources: KnowledgeSources;
  /** Seed the catalogue and this user's demo orders; idempotent (also when instances seed at once). */
  seed(userId: string): Promise<SeedSummary>;
}

/** Everything the server needs to run the NovaShop demo, wired to one SQLite file. */
export function createNovaShopDomain(options: NovaShopDomainOptions): NovaShopDomain {
  const shared = options.orders;
  const local = shared === undefined ? new SqliteOrderRepository(options.database) : undefined;
  const orders: OrderRepository = shared ?? (local as SqliteOrderRepository);
  return {
    tools: createNovaShopTools({
      orders,
      knowledge: options.knowledge,
      ...(options.toolDelayMs === undefined ? {} : { delayMs: options.toolDelayMs }),
    }),
    skills: loadNovaShopSkills(),
    orders,
    model: new NovaShopDemoModel(options.modelDelayMs === undefined ? {} : { delayMs: options.modelDelayMs }),
    sources: createNovaShopKnowledgeSources(),
    seed: async (userId) =>
      shared !== undefined
        ? seedNovaShopAsync(shared, userId)
        : seedNovaShop(local as SqliteOrderRepository, userId),
  };
}
