import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KnowledgeBase, SqliteKnowledgeStore } from '../../../src/retrieval/index.ts';
import type { ToolContext } from '../../../src/runtime/tools/tool.ts';
import { seedNovaShop } from '../orders/seed-novashop.ts';
import { SqliteOrderRepository } from '../orders/sqlite-order-repository.ts';
import { createNovaShopAnalyzer, ingestNovaShopKnowledge } from './novashop-knowledge.ts';

export const DEMO_USER = 'user_demo';
export const OTHER_USER = 'user_other';
/** The seed's clock: every demo order is dated relative to it. */
export const SEED_NOW = new Date('2026-10-12T06:00:00.000Z');
/** The clock cancellations read. */
export const CANCEL_NOW = new Date('2026-10-12T06:05:00.000Z');

export interface SeededShop {
  database: Database.Database;
  orders: SqliteOrderRepository;
  path: string;
  close(): void;
}

/** A real SQLite file in a temporary folder, seeded for the demo user. */
export function openSeededShop(): SeededShop {
  const directory = mkdtempSync(join(tmpdir(), 'novashop-'));
  const path = join(directory, 'runstream.db');
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  const orders = new SqliteOrderRepository(database, { now: () => CANCEL_NOW });
  seedNovaShop(orders, DEMO_USER, { now: SEED_NOW });
  return {
    database,
    orders,
    path,
    close() {
      database.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The example's real knowledge (examples/novashop/knowledge), ingested into its own SQLite file. */
export async function openNovaShopKnowledge(): Promise<{ knowledge: KnowledgeBase; close(): void }> {
  const directory = mkdtempSync(join(tmpdir(), 'novashop-kb-'));
  const database = new Database(join(directory, 'knowledge.db'));
  const knowledge = await KnowledgeBase.open({
    store: new SqliteKnowledgeStore(database),
    analyzer: createNovaShopAnalyzer(),
  });
  await ingestNovaShopKnowledge(knowledge);
  return {
    knowledge,
    close() {
      database.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export function toolContext(userId = DEMO_USER, toolCallId = 'call_test'): ToolContext {
  return {
    runId: 'run_test',
    conversationId: 'conv_test',
    userId,
    toolCallId,
    signal: new AbortController().signal,
  };
}
