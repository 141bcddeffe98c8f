import type { Database } from 'better-sqlite3';
import {
  cancellationRefusal,
  formatAmount,
  type ListOrdersOptions,
  ORDER_STATUSES,
  type Order,
  type OrderItem,
  type OrderRepository,
  type OrderStatus,
  orderNotFound,
} from './order-repository.ts';

/** A product as the shop sells it (knowledge/products/*.md). */
export interface Product {
  sku: string;
  name: string;
  spec: string;
  includes: string[];
  priceCents: number;
  availability: '现货' | '预售' | '清仓特价';
}

/** An order to insert; item names, specs and prices are copied from the products, as at checkout. */
export interface NewOrder {
  orderId: string;
  status: OrderStatus;
  createdAt: Date;
  items: { sku: string; quantity: number }[];
  shippingCents?: number;
  discountCents?: number;
  paymentMethod?: string;
  paidAt?: Date;
  shipment?: { carrier: string; trackingNumber: string; shippedAt: Date };
  deliveredAt?: Date;
  completedAt?: Date;
  cancelledAt?: Date;
  cancelReason?: string;
  refund?: { status: '已发起' | '已到账'; createdAt: Date };
}

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

interface OrderRow {
  user_id: string;
  order_id: string;
  status: string;
  created_at: number;
  goods_cents: number;
  shipping_cents: number;
  discount_cents: number;
  paid_cents: number;
  payment_method: string | null;
  paid_at: number | null;
  carrier: string | null;
  tracking_number: string | null;
  shipped_at: number | null;
  delivered_at: number | null;
  completed_at: number | null;
  cancelled_at: number | null;
  cancel_reason: string | null;
  refund_cents: number | null;
  refund_to: string | null;
  refund_status: string | null;
  refund_created_at: number | null;
}

interface ItemRow {
  order_id: string;
  sku: string;
  name: string;
  spec: string;
  includes: string;
  quantity: number;
  unit_price_cents: number;
}

interface ProductRow {
  sku: string;
  name: string;
  spec: string;
  includes: string;
  price_cents: number;
  availability: string;
}

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
    const limit = Math.min(Math.max(Math.trunc(options.limit), 1), 50);
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
      const status = row.status as OrderStatus;
      if (status === '已取消') return this.#toOrder(row);
      const refusal = cancellationRefusal({ orderId, status });
      if (refusal) throw refusal;
      const now = this.#now().getTime();
      const paid = row.paid_at !== null && row.paid_cents > 0;
      this.#database
        .prepare(
          `UPDATE novashop_orders SET status = '已取消', cancelled_at = @now, cancel_reason = '买家取消',
             refund_cents = @refundCents, refund_to = @refundTo, refund_status = @refundStatus,
             refund_created_at = @refundAt
           WHERE user_id = @userId AND order_id = @orderId AND status = @status`,
        )
        .run({
          now,
          refundCents: paid ? row.paid_cents : null,
          refundTo: paid ? refundDestination(row.payment_method) : null,
          refundStatus: paid ? '已发起' : null,
          refundAt: paid ? now : null,
          userId,
          orderId,
          status,
        });
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
      `INSERT OR IGNORE INTO novashop_products (sku, name, spec, includes, price_cents, availability)
       VALUES (@sku, @name, @spec, @includes, @priceCents, @availability)`,
    );
    const insertAll = this.#database.transaction(() =>
      products.reduce(
        (count, product) =>
          count + insert.run({ ...product, includes: JSON.stringify(product.includes) }).changes,
        0,
      ),
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
      `INSERT OR IGNORE INTO novashop_orders (user_id, order_id, status, created_at, goods_cents,
         shipping_cents, discount_cents, paid_cents, payment_method, paid_at, carrier, tracking_number,
         shipped_at, delivered_at, completed_at, cancelled_at, cancel_reason, refund_cents, refund_to,
         refund_status, refund_created_at)
       VALUES (@userId, @orderId, @status, @createdAt, @goodsCents, @shippingCents, @discountCents,
         @paidCents, @paymentMethod, @paidAt, @carrier, @trackingNumber, @shippedAt, @deliveredAt,
         @completedAt, @cancelledAt, @cancelReason, @refundCents, @refundTo, @refundStatus, @refundCreatedAt)`,
    );
    const insertItem = this.#database.prepare(
      `INSERT INTO novashop_order_items (user_id, order_id, line_no, sku, name, spec, includes, quantity,
         unit_price_cents)
       VALUES (@userId, @orderId, @lineNo, @sku, @name, @spec, @includes, @quantity, @unitPriceCents)`,
    );
    const product = this.#database.prepare('SELECT * FROM novashop_products WHERE sku = ?');
    const insertAll = this.#database.transaction(() => {
      let inserted = 0;
      for (const order of orders) {
        const lines = order.items.map((item, position) => {
          const row = product.get(item.sku) as ProductRow | undefined;
          if (row === undefined) throw new Error(`order ${order.orderId}: unknown SKU ${item.sku}`);
          return { row, quantity: item.quantity, lineNo: position + 1 };
        });
        const goodsCents = lines.reduce((sum, line) => sum + line.row.price_cents * line.quantity, 0);
        const shippingCents = order.shippingCents ?? 0;
        const discountCents = order.discountCents ?? 0;
        const paidCents = goodsCents + shippingCents - discountCents;
        const result = insertOrder.run({
          userId,
          orderId: order.orderId,
          status: order.status,
          createdAt: order.createdAt.getTime(),
          goodsCents,
          shippingCents,
          discountCents,
          paidCents,
          paymentMethod: order.paymentMethod ?? null,
          paidAt: order.paidAt?.getTime() ?? null,
          carrier: order.shipment?.carrier ?? null,
          trackingNumber: order.shipment?.trackingNumber ?? null,
          shippedAt: order.shipment?.shippedAt.getTime() ?? null,
          deliveredAt: order.deliveredAt?.getTime() ?? null,
          completedAt: order.completedAt?.getTime() ?? null,
          cancelledAt: order.cancelledAt?.getTime() ?? null,
          cancelReason: order.cancelReason ?? null,
          refundCents: order.refund ? paidCents : null,
          refundTo: order.refund ? refundDestination(order.paymentMethod ?? null) : null,
          refundStatus: order.refund?.status ?? null,
          refundCreatedAt: order.refund?.createdAt.getTime() ?? null,
        });
        if (result.changes === 0) continue;
        inserted += 1;
        for (const line of lines) {
          insertItem.run({
            userId,
            orderId: order.orderId,
            lineNo: line.lineNo,
            sku: line.row.sku,
            name: line.row.name,
            spec: line.row.spec,
            includes: line.row.includes,
            quantity: line.quantity,
            unitPriceCents: line.row.price_cents,
          });
        }
      }
      return inserted;
    });
    return insertAll();
  }

  /** Every product, by SKU. */
  listProducts(): Product[] {
    const rows = this.#database.prepare('SELECT * FROM novashop_products ORDER BY sku').all() as ProductRow[];
    return rows.map((row) => ({
      sku: row.sku,
      name: row.name,
      spec: row.spec,
      includes: parseList(row.includes),
      priceCents: row.price_cents,
      availability: row.availability as Product['availability'],
    }));
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
    return rows.map((row) => ({
      sku: row.sku,
      name: row.name,
      spec: row.spec,
      includes: parseList(row.includes),
      quantity: row.quantity,
      unitPrice: formatAmount(row.unit_price_cents),
      subtotal: formatAmount(row.unit_price_cents * row.quantity),
    }));
  }

  #toOrder(row: OrderRow): Order {
    return {
      orderId: row.order_id,
      status: row.status as OrderStatus,
      createdAt: iso(row.created_at),
      items: this.#items(row.user_id, row.order_id),
      goodsAmount: formatAmount(row.goods_cents),
      shippingFee: formatAmount(row.shipping_cents),
      discount: formatAmount(row.discount_cents),
      paidAmount: formatAmount(row.paid_cents),
      paymentMethod: row.payment_method,
      paidAt: isoOrNull(row.paid_at),
      shipment:
        row.carrier !== null && row.tracking_number !== null && row.shipped_at !== null
          ? { carrier: row.carrier, trackingNumber: row.tracking_number, shippedAt: iso(row.shipped_at) }
          : null,
      deliveredAt: isoOrNull(row.delivered_at),
      completedAt: isoOrNull(row.completed_at),
      cancelledAt: isoOrNull(row.cancelled_at),
      cancelReason: row.cancel_reason,
      refund:
        row.refund_cents !== null && row.refund_status !== null && row.refund_created_at !== null
          ? {
              amount: formatAmount(row.refund_cents),
              to: row.refund_to ?? '原支付方式',
              status: row.refund_status as '已发起' | '已到账',
              createdAt: iso(row.refund_created_at),
            }
          : null,
    };
  }
}

/** Refunds go back the way the money came (refunds.md §一). */
function refundDestination(paymentMethod: string | null): string {
  return paymentMethod ? `原路退回（${paymentMethod}）` : '原路退回';
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : iso(epochMs);
}

function parseList(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
