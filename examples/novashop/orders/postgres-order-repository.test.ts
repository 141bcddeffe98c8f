import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../../src/store/postgres/postgres-migrations.ts';
import { openPostgres } from '../../../src/store/postgres/postgres-pool.ts';
import {
  createTestDatabase,
  postgresForTests,
  type TestDatabase,
} from '../../../src/store/postgres/test-support/test-database.ts';
import { CANCEL_NOW, DEMO_USER, SEED_NOW } from '../test-support/novashop-fixture.ts';
import { describeOrderRepositoryConformance } from './order-repository-conformance.ts';
import { NOVASHOP_ORDERS_SCHEMA, PostgresOrderRepository } from './postgres-order-repository.ts';
import { NOVASHOP_PRODUCTS, seedNovaShopAsync } from './seed-novashop.ts';

const hasPostgres = await postgresForTests();

/** What the server does at start-up, before it seeds. */
const migrate = (pool: pg.Pool) => migratePostgres(pool, NOVASHOP_ORDERS_SCHEMA);

async function rowCounts(pool: pg.Pool): Promise<{ products: number; orders: number; items: number }> {
  const { rows } = await pool.query<{ products: number; orders: number; items: number }>(
    `SELECT (SELECT count(*) FROM novashop_products) AS products,
            (SELECT count(*) FROM novashop_orders) AS orders,
            (SELECT count(*) FROM novashop_order_items) AS items`,
  );
  const counts = rows[0];
  if (counts === undefined) throw new Error('no counts');
  return counts;
}

async function refundCents(pool: pg.Pool, userId: string, orderId: string): Promise<(number | null)[]> {
  const { rows } = await pool.query<{ refund_cents: number | null }>(
    'SELECT refund_cents FROM novashop_orders WHERE user_id = $1 AND order_id = $2',
    [userId, orderId],
  );
  return rows.map((row) => row.refund_cents);
}

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs`. */
async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!hasPostgres)('PostgresOrderRepository on PostgreSQL', () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase('novashop_orders_test');
    pool = await openPostgres(database.url);
    await migrate(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  /** Empty tables, then the demo user's seed: every test starts from the same shop. */
  async function seededRepository(): Promise<PostgresOrderRepository> {
    await pool.query('TRUNCATE novashop_order_items, novashop_orders, novashop_products');
    const orders = new PostgresOrderRepository(pool, { now: () => CANCEL_NOW });
    await seedNovaShopAsync(orders, DEMO_USER, { now: SEED_NOW });
    return orders;
  }

  describeOrderRepositoryConformance('PostgresOrderRepository', async () => {
    const orders = await seededRepository();
    return {
      orders,
      seed: (userId, now) => seedNovaShopAsync(orders, userId, { now }),
      listProducts: () => orders.listProducts(),
      rowCounts: () => rowCounts(pool),
      refundCents: (userId, orderId) => refundCents(pool, userId, orderId),
      close: async () => undefined,
    };
  });

  it('records its schema under novashop_orders; migrating again changes nothing', async () => {
    await migrate(pool);
    await migrate(pool);
    const { rows } = await pool.query('SELECT component, version FROM runstream_schema');
    expect(rows).toContainEqual({ component: 'novashop_orders', version: 1 });
  });

  it('refunds once when two instances cancel the same paid order at the same moment', async () => {
    const first = await seededRepository();
    const users = ['user_race_1', 'user_race_2', 'user_race_3', 'user_race_4', 'user_race_5'];
    for (const user of users) await seedNovaShopAsync(first, user, { now: SEED_NOW });
    const otherPool = await openPostgres(database.url);
    try {
      // Another instance: its own pool, and a clock a minute later, so a second refund would show.
      const second = new PostgresOrderRepository(otherPool, {
        now: () => new Date(CANCEL_NOW.getTime() + 60_000),
      });
      // Hold the orders locked until both instances' cancels are waiting on them, so the two
      // really race for each order when it is released.
      const holder = await pool.connect();
      let cancels: Promise<unknown>[] = [];
      try {
        await holder.query('BEGIN');
        await holder.query(
          "SELECT 1 FROM novashop_orders WHERE order_id = '88235' AND user_id = ANY($1::text[]) FOR UPDATE",
          [users],
        );
        cancels = users.flatMap((user) => [
          first.cancelOrder(user, '88235'),
          second.cancelOrder(user, '88235'),
        ]);
        await waitFor(async () => {
          const { rows } = await pool.query<{ waiting: number }>(
            `SELECT count(*) AS waiting FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0]?.waiting === cancels.length;
        });
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      const results = await Promise.all(cancels);
      for (const [index, user] of users.entries()) {
        const [fromFirst, fromSecond] = results.slice(index * 2, index * 2 + 2);
        // Whichever instance cancelled, the other returned that same cancellation.
        expect(fromSecond).toEqual(fromFirst);
        expect(fromFirst).toMatchObject({
          status: '已取消',
          refund: { amount: '3378.00', status: '已发起' },
        });
        expect(await refundCents(pool, user, '88235')).toEqual([337800]);
        expect(await first.getOrder(user, '88235')).toEqual(fromFirst);
      }
    } finally {
      await otherPool.end();
    }
  });

  it('migrates and seeds once when two instances start at once on an empty database', async () => {
    const fresh = await createTestDatabase('novashop_start_test');
    const pools = await Promise.all([openPostgres(fresh.url), openPostgres(fresh.url)]);
    try {
      const summaries = await Promise.all(
        pools.map(async (instancePool) => {
          await migrate(instancePool);
          return seedNovaShopAsync(new PostgresOrderRepository(instancePool), DEMO_USER, { now: SEED_NOW });
        }),
      );
      expect(summaries.reduce((sum, summary) => sum + summary.productsInserted, 0)).toBe(
        NOVASHOP_PRODUCTS.length,
      );
      expect(summaries.reduce((sum, summary) => sum + summary.ordersInserted, 0)).toBe(6);
      const [firstPool] = pools;
      if (firstPool === undefined) throw new Error('no pool');
      expect(await rowCounts(firstPool)).toEqual({ products: NOVASHOP_PRODUCTS.length, orders: 6, items: 7 });
    } finally {
      await Promise.all(pools.map((instancePool) => instancePool.end()));
      await fresh.drop();
    }
  });

  it('names the pool it needs when BIGINT reads as strings (pg’s default)', async () => {
    await seededRepository();
    const plain = new pg.Pool({ connectionString: database.url });
    try {
      await expect(new PostgresOrderRepository(plain).getOrder(DEMO_USER, '88235')).rejects.toThrow(
        /openPostgres/,
      );
    } finally {
      await plain.end();
    }
  });
});
