import type { Database } from 'better-sqlite3';
import {
  type ListOrdersOptions,
  ORDER_STATUSES,
  type Order,
  type OrderItem,
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

export interface SqliteOrderRepositoryOptions {
  /** The clock for cancellations. Default: the system clock. */
  now?: () => Date;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS novashop_products (
  sku TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  spec TEXT NOT NULL,
  includes TEXT NOT NULL DEFAULT '[]',
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
  availability TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS novashop_orders (
  user_id TEXT NOT NULL,
  order_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${ORDER_STATUSES.map((status) => `'${status}'`).join(', ')})),
  created_at INTEGER NOT NULL,
  goods_cents INTEGER NOT NULL,
  shipping_cents INTEGER NOT NULL DEFAULT 0,
  discount_cents INTEGER NOT NULL DEFAULT 0,
  paid_cents INTEGER NOT NULL,
  payment_method TEXT,
  paid_at INTEGER,
  carrier TEXT,
  tracking_number TEXT,
  shipped_at INTEGER,
  delivered_at INTEGER,
  completed_at INTEGER,
  cancelled_at INTEGER,
  cancel_reason TEXT,
  refund_cents INTEGER,
  refund_to TEXT,
  refund_status TEXT,
  refund_created_at INTEGER,
  PRIMARY KEY (user_id, order_id)
);
CREATE INDEX IF NOT EXISTS novashop_orders_by_user_time ON novashop_orders (user_id, created_at DESC);
CREATE TABLE IF NOT EXISTS novashop_order_items (
  user_id TEXT NOT NULL,
  order_id TEXT NOT NULL,
  line_no INTEGER NOT NULL,
  sku TEXT NOT NULL REFERENCES novashop_products (sku),
  name TEXT NOT NULL,
  spec TEXT NOT NULL,
  includes TEXT NOT NULL DEFAULT '[]',
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL,
  PRIMARY KEY (user_id, order_id, line_no),
  FOREIGN KEY (user_id, order_id) REFERENCES novashop_orders (user_id, order_id) ON DELETE CASCADE
);
`;

/**
 * Orders in the product's SQLite file (better-sqlite3), in tables of their own created on first use.
 * Demo orders are seeded per user, so an order number is unique per user: the key is (user, order).
 */
export class SqliteOrderRepository implements OrderRepository {
  readonly #database: Database;
  readonly #now: () => Date;

  constructor(database: Database, options: SqliteOrderRepositoryOptions = {}) {
    this.#database = database;
    this.#now = options.now ?? (() => new Date());
    database.exec(SCHEMA);
  }

  async listOrders(userId: string, options: ListOrdersOptions): Promise<Order[]> {
    const limit = listLimit(options);
    const rows = (
      options.status === undefined
        ? this.#database
            .prepare(
              'SELECT * FROM novashop_orders WHERE user_id = ? ORDER BY created_at DESC, order_id DESC LIMIT ?',
            )
            .all(userId, limit)
        : this.#database
            .prepare(
              'SELECT * FROM novashop_orders WHERE user_id = ? AND status = ? ORDER BY created_at DESC, order_id DESC LIMIT ?',
            )
            .all(userId, options.status, limit)
    ) as OrderRow[];
    return rows.map((row) => this.#toOrder(row));
  }

  async getOrder(userId: string, orderId: string): Promise<Order | undefined> {
    const row = this.#row(userId, orderId);
    return row === undefined ? undefined : this.#toOrder(row);
  }

  async cancelOrder(userId: string, orderId: string): Promise<Order> {
    const cancel = this.#database.transaction((): Order => {
      const row = this.#row(userId, orderId);
      if (row === undefined) throw orderNotFound(orderId);
      const cancellation = cancellationOf(row, this.#now().getTime());
      if (cancellation === undefined) return this.#toOrder(row);
      this.#database
        .prepare(
          `UPDATE novashop_orders SET status = '已取消', cancelled_at = @cancelled_at,
             cancel_reason = @cancel_reason, refund_cents = @refund_cents, refund_to = @refund_to,
             refund_status = @refund_status, refund_created_at = @refund_created_at
           WHERE user_id = @userId AND order_id = @orderId AND status = @status`,
        )
        .run({ ...cancellation, userId, orderId, status: row.status });
      const updated = this.#row(userId, orderId);
      if (updated === undefined) throw orderNotFound(orderId);
      return this.#toOrder(updated);
    });
    // IMMEDIATE: take the write lock before reading, so two cancels cannot both see the old status.
    return cancel.immediate();
  }

  /** Insert products that are not there yet; returns how many were new. */
  insertProducts(products: readonly Product[]): number {
    const insert = this.#database.prepare(
      `INSERT OR IGNORE INTO novashop_products (${PRODUCT_COLUMNS.join(', ')})
       VALUES (${namedParameters(PRODUCT_COLUMNS)})`,
    );
    const insertAll = this.#database.transaction(() =>
      products.reduce((count, product) => count + insert.run(productRow(product)).changes, 0),
    );
    return insertAll();
  }

  /**
   * Insert the user's orders that are not there yet (by order number), leaving existing ones as they
   * are, so seeding again neither duplicates an order nor undoes a cancellation. Returns how many
   * were new.
   */
  insertOrders(userId: string, orders: readonly NewOrder[]): number {
    const insertOrder = this.#database.prepare(
      `INSERT OR IGNORE INTO novashop_orders (${ORDER_COLUMNS.join(', ')})
       VALUES (${namedParameters(ORDER_COLUMNS)})`,
    );
    const insertItem = this.#database.prepare(
      `INSERT INTO novashop_order_items (${ITEM_COLUMNS.join(', ')}) VALUES (${namedParameters(ITEM_COLUMNS)})`,
    );
    const product = this.#database.prepare('SELECT * FROM novashop_products WHERE sku = ?');
    const findProduct = (sku: string): Product | undefined => {
      const row = product.get(sku) as ProductRow | undefined;
      return row === undefined ? undefined : toProduct(row);
    };
    const insertAll = this.#database.transaction(() => {
      let inserted = 0;
      for (const order of orders) {
        const rows = newOrderRows(userId, order, findProduct);
        if (insertOrder.run(rows.order).changes === 0) continue;
        inserted += 1;
        for (const item of rows.items) insertItem.run(item);
      }
      return inserted;
    });
    return insertAll();
  }

  /** Every product, by SKU. */
  listProducts(): Product[] {
    const rows = this.#database.prepare('SELECT * FROM novashop_products ORDER BY sku').all() as ProductRow[];
    return rows.map(toProduct);
  }

  #row(userId: string, orderId: string): OrderRow | undefined {
    return this.#database
      .prepare('SELECT * FROM novashop_orders WHERE user_id = ? AND order_id = ?')
      .get(userId, orderId) as OrderRow | undefined;
  }

  #items(userId: string, orderId: string): OrderItem[] {
    const rows = this.#database
      .prepare('SELECT * FROM novashop_order_items WHERE user_id = ? AND order_id = ? ORDER BY line_no')
      .all(userId, orderId) as ItemRow[];
    return rows.map(toOrderItem);
  }

  #toOrder(row: OrderRow): Order {
    return toOrder(row, this.#items(row.user_id, row.order_id));
  }
}

/** `@sku, @name, …`: better-sqlite3 binds each from the row object's property of that name. */
function namedParameters(columns: readonly string[]): string {
  return columns.map((column) => `@${column}`).join(', ');
}
