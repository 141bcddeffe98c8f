import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { openPostgres } from 'runstream/postgres';
import type { OrderRepository } from './order-repository.ts';
import { PostgresOrderRepository } from './postgres-order-repository.ts';
import { seedNovaShop, seedNovaShopAsync } from './seed-novashop.ts';
import { SqliteOrderRepository } from './sqlite-order-repository.ts';

/** The demo user `npm start` signs everyone in as: the one whose orders are seeded. */
export const DEMO_USER_ID = 'usr_demo';

export interface OpenedOrders {
  orders: OrderRepository;
  close(): Promise<void>;
}

/**
 * NovaShop's orders, where the server keeps its own state: PostgreSQL when `RUNSTREAM_DATABASE_URL`
 * is set (shared by every instance), else tables of their own in the server's SQLite file. The
 * catalogue and the demo user's orders are seeded (idempotent, also when instances start at once).
 */
export async function openOrders(
  env: Readonly<Record<string, string | undefined>>,
  databasePath: string,
): Promise<OpenedOrders> {
  const databaseUrl = env.RUNSTREAM_DATABASE_URL?.trim();
  if (databaseUrl) {
    const pool = await openPostgres(databaseUrl);
    const orders = await PostgresOrderRepository.open(pool);
    await seedNovaShopAsync(orders, DEMO_USER_ID);
    return { orders, close: () => pool.end() };
  }
  if (databasePath !== ':memory:') mkdirSync(dirname(databasePath), { recursive: true });
  const database = new Database(databasePath);
  // As the server opens the same file: WAL so its readers never wait, and a busy timeout so two
  // connections to one file take turns instead of failing.
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  const orders = new SqliteOrderRepository(database);
  seedNovaShop(orders, DEMO_USER_ID);
  return {
    orders,
    close: async () => {
      database.close();
    },
  };
}
