import type pg from 'pg';
import { inTransaction, migratePostgres, type PostgresSchema } from 'runstream/postgres';
import {
  type ListOrdersOptions,
  type Order,
  type OrderRepository,
  orderNotFound,
} from './order-repository.ts';
import {
  cancellationOf,
  ITEM_COLUMNS,
  type ItemRow,
  listLimit,
  type NewOrder,
  newOrderRows,
  ORDER_COLUMNS,
  type OrderRow,
  PRODUCT_COLUMNS,
  type Product,
  type ProductRow,
  productRow,
  toOrder,
  toOrderItem,
  toProduct,
} from './order-rows.ts';

export interface PostgresOrderRepositoryOptions {
  /** The clock for cancellations. Default: the system clock. */
  now?: () => Date;
}

/**
 * The order tables, as versioned migrations (`migrateNovaShopOrders`, or `PostgresOrderRepository.open`).
 *
 * The SQLite tables (sqlite-order-repository.ts) in PostgreSQL types: amounts stay integer cents and
 * times epoch milliseconds (BIGINT), so both stores read through the same row mapping; `includes` is
 * JSONB. The status list is written out rather than built from `ORDER_STATUSES`, because a released
 * migration must never change: a new status takes a new migration.
 */
export const NOVASHOP_ORDERS_SCHEMA: PostgresSchema = {
  component: 'novashop_orders',
  migrations: [
    `CREATE TABLE novashop_products (
       sku TEXT PRIMARY KEY,
       name TEXT NOT NULL,
       spec TEXT NOT NULL,
       includes JSONB NOT NULL DEFAULT '[]',
       price_cents BIGINT NOT NULL CHECK (price_cents >= 0),
       availability TEXT NOT NULL
     );
     CREATE TABLE novashop_orders (
       user_id TEXT NOT NULL,
       order_id TEXT NOT NULL,
       status TEXT NOT NULL CHECK (status IN ('待付款', '已支付待发货', '已发货', '已签收', '已完成', '已取消')),
       created_at BIGINT NOT NULL,
       goods_cents BIGINT NOT NULL,
       shipping_cents BIGINT NOT NULL DEFAULT 0,
       discount_cents BIGINT NOT NULL DEFAULT 0,
       paid_cents BIGINT NOT NULL,
       payment_method TEXT,
       paid_at BIGINT,
       carrier TEXT,
       tracking_number TEXT,
       shipped_at BIGINT,
       delivered_at BIGINT,
       completed_at BIGINT,
       cancelled_at BIGINT,
       cancel_reason TEXT,
       refund_cents BIGINT,
       refund_to TEXT,
       refund_status TEXT,
       refund_created_at BIGINT,
       PRIMARY KEY (user_id, order_id)
     );
     CREATE INDEX novashop_orders_by_user_time ON novashop_orders (user_id, created_at DESC);
     CREATE TABLE novashop_order_items (
       user_id TEXT NOT NULL,
       order_id TEXT NOT NULL,
       line_no INTEGER NOT NULL,
       sku TEXT NOT NULL REFERENCES novashop_products (sku),
       name TEXT NOT NULL,
       spec TEXT NOT NULL,
       includes JSONB NOT NULL DEFAULT '[]',
       quantity INTEGER NOT NULL CHECK (quantity > 0),
       unit_price_cents BIGINT NOT NULL,
       PRIMARY KEY (user_id, order_id, line_no),
       FOREIGN KEY (user_id, order_id) REFERENCES novashop_orders (user_id, order_id) ON DELETE CASCADE
     );`,
  ],
};

const INSERT_PRODUCT = `INSERT INTO novashop_products (${PRODUCT_COLUMNS.join(', ')})
  VALUES (${positionalParameters(PRODUCT_COLUMNS)}) ON CONFLICT (sku) DO NOTHING`;
const INSERT_ORDER = `INSERT INTO novashop_orders (${ORDER_COLUMNS.join(', ')})
  VALUES (${positionalParameters(ORDER_COLUMNS)}) ON CONFLICT (user_id, order_id) DO NOTHING`;
const INSERT_ITEM = `INSERT INTO novashop_order_items (${ITEM_COLUMNS.join(', ')})
  VALUES (${positionalParameters(ITEM_COLUMNS)})`;

/** The pool, or one connection inside a transaction. */
type Queryable = pg.Pool | pg.PoolClient;

/**
 * Orders in PostgreSQL, for several instances sharing one database; the same semantics as
 * `SqliteOrderRepository`, keyed by (user, order). The pool must read BIGINT as numbers, as the one
 * from `openPostgres` does, and the tables must exist (`NOVASHOP_ORDERS_SCHEMA`).
 */
export class PostgresOrderRepository implements OrderRepository {
  readonly #pool: pg.Pool;
  readonly #now: () => Date;

  constructor(pool: pg.Pool, options: PostgresOrderRepositoryOptions = {}) {
    this.#pool = pool;
    this.#now = options.now ?? (() => new Date());
  }

  /** Migrates the order tables (safe from several instances at once) and returns the repository. */
  static async open(
    pool: pg.Pool,
    options: PostgresOrderRepositoryOptions = {},
  ): Promise<PostgresOrderRepository> {
    await migratePostgres(pool, NOVASHOP_ORDERS_SCHEMA);
    return new PostgresOrderRepository(pool, options);
  }

  async listOrders(userId: string, options: ListOrdersOptions): Promise<Order[]> {
    // COLLATE "C": order numbers compare byte by byte, as SQLite compares them, whatever the
    // database's collation.
    const { rows } = await this.#pool.query<OrderRow>(
      `SELECT * FROM novashop_orders WHERE user_id = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY created_at DESC, order_id COLLATE "C" DESC LIMIT $3`,
      [userId, options.status ?? null, listLimit(options)],
    );
    return toOrders(this.#pool, userId, rows);
  }

  async getOrder(userId: string, orderId: string): Promise<Order | undefined> {
    const { rows } = await this.#pool.query<OrderRow>(
      'SELECT * FROM novashop_orders WHERE user_id = $1 AND order_id = $2',
      [userId, orderId],
    );
    return (await toOrders(this.#pool, userId, rows))[0];
  }

  async cancelOrder(userId: string, orderId: string): Promise<Order> {
    return inTransaction(this.#pool, async (client) => {
      // FOR UPDATE: a second cancel of this order (from this instance or another) waits here until
      // this transaction commits, then reads the row already cancelled and refunds nothing.
      const row = (
        await client.query<OrderRow>(
          'SELECT * FROM novashop_orders WHERE user_id = $1 AND order_id = $2 FOR UPDATE',
          [userId, orderId],
        )
      ).rows[0];
      if (row === undefined) throw orderNotFound(orderId);
      const cancellation = cancellationOf(row, this.#now().getTime());
      if (cancellation === undefined) return single(await toOrders(client, userId, [row]), orderId);
      const { rows } = await client.query<OrderRow>(
        `UPDATE novashop_orders SET status = '已取消', cancelled_at = $1, cancel_reason = $2,
           refund_cents = $3, refund_to = $4, refund_status = $5, refund_created_at = $6
         WHERE user_id = $7 AND order_id = $8 AND status = $9
         RETURNING *`,
        [
          cancellation.cancelled_at,
          cancellation.cancel_reason,
          cancellation.refund_cents,
          cancellation.refund_to,
          cancellation.refund_status,
          cancellation.refund_created_at,
          userId,
          orderId,
          row.status,
        ],
      );
      return single(await toOrders(client, userId, rows), orderId);
    });
  }

  /** Insert products that are not there yet; returns how many were new. */
  async insertProducts(products: readonly Product[]): Promise<number> {
    return inTransaction(this.#pool, async (client) => {
      let inserted = 0;
      for (const product of inLockOrder(products, (entry) => entry.sku)) {
        const row = productRow(product);
        const result = await client.query(
          INSERT_PRODUCT,
          PRODUCT_COLUMNS.map((column) => row[column]),
        );
        inserted += result.rowCount ?? 0;
      }
      return inserted;
    });
  }

  /**
   * Insert the user's orders that are not there yet (by order number), leaving existing ones as they
   * are, so seeding again neither duplicates an order nor undoes a cancellation. When two instances
   * seed at once, the second waits on each order the first inserted, then skips it. Returns how many
   * were new.
   */
  async insertOrders(userId: string, orders: readonly NewOrder[]): Promise<number> {
    const skus = [...new Set(orders.flatMap((order) => order.items.map((item) => item.sku)))];
    return inTransaction(this.#pool, async (client) => {
      const { rows: productRows } = await client.query<ProductRow>(
        'SELECT * FROM novashop_products WHERE sku = ANY($1::text[])',
        [skus],
      );
      const products = new Map(productRows.map((row) => [row.sku, toProduct(row)]));
      let inserted = 0;
      for (const order of inLockOrder(orders, (entry) => entry.orderId)) {
        const rows = newOrderRows(userId, order, (sku) => products.get(sku));
        const result = await client.query(
          INSERT_ORDER,
          ORDER_COLUMNS.map((column) => rows.order[column]),
        );
        if (result.rowCount === 0) continue;
        inserted += 1;
        for (const item of rows.items) {
          await client.query(
            INSERT_ITEM,
            ITEM_COLUMNS.map((column) => item[column]),
          );
        }
      }
      return inserted;
    });
  }

  /** Every product, by SKU. */
  async listProducts(): Promise<Product[]> {
    const { rows } = await this.#pool.query<ProductRow>(
      'SELECT * FROM novashop_products ORDER BY sku COLLATE "C"',
    );
    return rows.map(toProduct);
  }
}

/** The orders of `rows` with their items, read in one query. */
async function toOrders(queryable: Queryable, userId: string, rows: readonly OrderRow[]): Promise<Order[]> {
  const first = rows[0];
  if (first === undefined) return [];
  // pg's default reads BIGINT as a string, which would turn every time into an Invalid Date.
  if (typeof first.created_at !== 'number')
    throw new Error(
      'PostgresOrderRepository needs a pool that reads BIGINT as numbers: open it with openPostgres',
    );
  const { rows: itemRows } = await queryable.query<ItemRow>(
    `SELECT * FROM novashop_order_items WHERE user_id = $1 AND order_id = ANY($2::text[])
     ORDER BY order_id, line_no`,
    [userId, rows.map((row) => row.order_id)],
  );
  const items = new Map<string, ItemRow[]>();
  for (const item of itemRows) items.set(item.order_id, [...(items.get(item.order_id) ?? []), item]);
  return rows.map((row) => toOrder(row, (items.get(row.order_id) ?? []).map(toOrderItem)));
}

function single(orders: readonly Order[], orderId: string): Order {
  const order = orders[0];
  if (order === undefined) throw orderNotFound(orderId);
  return order;
}

/**
 * Rows in one fixed order by key, so two instances seeding at once take the row locks in the same
 * order (the second waits, never deadlocks), even if their versions list the seed differently.
 */
function inLockOrder<T>(entries: readonly T[], key: (entry: T) => string): T[] {
  return [...entries].sort((left, right) => {
    const a = key(left);
    const b = key(right);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** `$1, $2, …` for the columns, which are bound in this order. */
function positionalParameters(columns: readonly string[]): string {
  return columns.map((_, index) => `$${index + 1}`).join(', ');
}
