import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CANCEL_NOW,
  DEMO_USER,
  openSeededShop,
  SEED_NOW,
  type SeededShop,
} from '../test-support/novashop-fixture.ts';
import { describeOrderRepositoryConformance } from './order-repository-conformance.ts';
import { seedNovaShop } from './seed-novashop.ts';
import { SqliteOrderRepository } from './sqlite-order-repository.ts';

function countRows(database: Database.Database, table: string): number {
  return (database.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

describeOrderRepositoryConformance('SqliteOrderRepository', async () => {
  const shop = openSeededShop();
  return {
    orders: shop.orders,
    seed: async (userId, now) => seedNovaShop(shop.orders, userId, { now }),
    listProducts: async () => shop.orders.listProducts(),
    rowCounts: async () => ({
      products: countRows(shop.database, 'novashop_products'),
      orders: countRows(shop.database, 'novashop_orders'),
      items: countRows(shop.database, 'novashop_order_items'),
    }),
    refundCents: async (userId, orderId) =>
      (
        shop.database
          .prepare('SELECT refund_cents FROM novashop_orders WHERE user_id = ? AND order_id = ?')
          .all(userId, orderId) as { refund_cents: number | null }[]
      ).map((row) => row.refund_cents),
    close: async () => shop.close(),
  };
});

describe('SqliteOrderRepository on the SQLite file', () => {
  let shop: SeededShop;

  beforeEach(() => {
    shop = openSeededShop();
  });

  afterEach(() => {
    shop.close();
  });

  const counts = () =>
    ['novashop_products', 'novashop_orders', 'novashop_order_items'].map((table) =>
      countRows(shop.database, table),
    );

  it('seeds through a bare Database, or a second repository on the file, without adding anything', () => {
    const before = counts();
    expect(seedNovaShop(shop.database, DEMO_USER, { now: new Date() })).toEqual({
      productsInserted: 0,
      ordersInserted: 0,
    });
    expect(seedNovaShop(new SqliteOrderRepository(shop.database), DEMO_USER, { now: SEED_NOW })).toEqual({
      productsInserted: 0,
      ordersInserted: 0,
    });
    expect(counts()).toEqual(before);
  });

  it('sees, from a second connection to the file, a cancellation made on the first, and refunds nothing more', async () => {
    const second = new Database(shop.path);
    try {
      const other = new SqliteOrderRepository(second, { now: () => new Date(CANCEL_NOW.getTime() + 60_000) });
      const first = await shop.orders.cancelOrder(DEMO_USER, '88235');
      expect(await other.cancelOrder(DEMO_USER, '88235')).toEqual(first);
      expect(first.refund?.createdAt).toBe(CANCEL_NOW.toISOString());
    } finally {
      second.close();
    }
  });
});
