import {
  cancellationRefusal,
  formatAmount,
  type ListOrdersOptions,
  type Order,
  type OrderItem,
  type OrderStatus,
} from './order-repository.ts';

/**
 * What the SQLite and PostgreSQL order repositories share: the rows of the three NovaShop tables
 * (same tables, same columns in both), how a row reads as an `Order`, what a cancellation writes,
 * and how a `NewOrder` becomes rows. Amounts are integer cents and times epoch milliseconds in both
 * stores, so the mapping is the same code.
 */

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

/** A row of `novashop_orders`: amounts in cents, times in epoch milliseconds. */
export interface OrderRow {
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

/**
 * `includes` is a JSON list of strings: written as JSON text; read back as that text (SQLite's TEXT)
 * or already parsed (PostgreSQL's JSONB).
 */
type JsonList = string | unknown[];

/** A row of `novashop_order_items`. */
export interface ItemRow {
  user_id: string;
  order_id: string;
  line_no: number;
  sku: string;
  name: string;
  spec: string;
  includes: JsonList;
  quantity: number;
  unit_price_cents: number;
}

/** A row of `novashop_products`. */
export interface ProductRow {
  sku: string;
  name: string;
  spec: string;
  includes: JsonList;
  price_cents: number;
  availability: string;
}

export const ORDER_COLUMNS = [
  'user_id',
  'order_id',
  'status',
  'created_at',
  'goods_cents',
  'shipping_cents',
  'discount_cents',
  'paid_cents',
  'payment_method',
  'paid_at',
  'carrier',
  'tracking_number',
  'shipped_at',
  'delivered_at',
  'completed_at',
  'cancelled_at',
  'cancel_reason',
  'refund_cents',
  'refund_to',
  'refund_status',
  'refund_created_at',
] as const satisfies readonly (keyof OrderRow)[];

export const ITEM_COLUMNS = [
  'user_id',
  'order_id',
  'line_no',
  'sku',
  'name',
  'spec',
  'includes',
  'quantity',
  'unit_price_cents',
] as const satisfies readonly (keyof ItemRow)[];

export const PRODUCT_COLUMNS = [
  'sku',
  'name',
  'spec',
  'includes',
  'price_cents',
  'availability',
] as const satisfies readonly (keyof ProductRow)[];

/** `options.limit` held to 1–50. */
export function listLimit(options: ListOrdersOptions): number {
  return Math.min(Math.max(Math.trunc(options.limit), 1), 50);
}

export function toOrder(row: OrderRow, items: OrderItem[]): Order {
  return {
    orderId: row.order_id,
    status: row.status as OrderStatus,
    createdAt: iso(row.created_at),
    items,
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

export function toOrderItem(row: ItemRow): OrderItem {
  return {
    sku: row.sku,
    name: row.name,
    spec: row.spec,
    includes: parseList(row.includes),
    quantity: row.quantity,
    unitPrice: formatAmount(row.unit_price_cents),
    subtotal: formatAmount(row.unit_price_cents * row.quantity),
  };
}

export function toProduct(row: ProductRow): Product {
  return {
    sku: row.sku,
    name: row.name,
    spec: row.spec,
    includes: parseList(row.includes),
    priceCents: row.price_cents,
    availability: row.availability as Product['availability'],
  };
}

export function productRow(product: Product): ProductRow & { includes: string } {
  return {
    sku: product.sku,
    name: product.name,
    spec: product.spec,
    includes: JSON.stringify(product.includes),
    price_cents: product.priceCents,
    availability: product.availability,
  };
}

/** The columns a cancellation writes. */
export interface Cancellation {
  cancelled_at: number;
  cancel_reason: string;
  refund_cents: number | null;
  refund_to: string | null;
  refund_status: '已发起' | null;
  refund_created_at: number | null;
}

/**
 * What cancelling the order in `row` writes, at `now` (epoch ms): `undefined` when it is already
 * cancelled (returned as it is, never refunded twice); throws the `ToolError` of
 * `cancellationRefusal` when its status forbids it. A paid order gets its whole payment refunded,
 * started at once, to the original payment method.
 */
export function cancellationOf(row: OrderRow, now: number): Cancellation | undefined {
  const status = row.status as OrderStatus;
  if (status === '已取消') return undefined;
  const refusal = cancellationRefusal({ orderId: row.order_id, status });
  if (refusal) throw refusal;
  const paid = row.paid_at !== null && row.paid_cents > 0;
  return {
    cancelled_at: now,
    cancel_reason: '买家取消',
    refund_cents: paid ? row.paid_cents : null,
    refund_to: paid ? refundDestination(row.payment_method) : null,
    refund_status: paid ? '已发起' : null,
    refund_created_at: paid ? now : null,
  };
}

/**
 * The rows for `order`: amounts computed from the products' prices (goods + shipping − discount),
 * items numbered from 1. Throws when an item's SKU is not a product.
 */
export function newOrderRows(
  userId: string,
  order: NewOrder,
  product: (sku: string) => Product | undefined,
): { order: OrderRow; items: (ItemRow & { includes: string })[] } {
  const lines = order.items.map((item) => {
    const found = product(item.sku);
    if (found === undefined) throw new Error(`order ${order.orderId}: unknown SKU ${item.sku}`);
    return { product: found, quantity: item.quantity };
  });
  const goodsCents = lines.reduce((sum, line) => sum + line.product.priceCents * line.quantity, 0);
  const shippingCents = order.shippingCents ?? 0;
  const discountCents = order.discountCents ?? 0;
  const paidCents = goodsCents + shippingCents - discountCents;
  return {
    order: {
      user_id: userId,
      order_id: order.orderId,
      status: order.status,
      created_at: order.createdAt.getTime(),
      goods_cents: goodsCents,
      shipping_cents: shippingCents,
      discount_cents: discountCents,
      paid_cents: paidCents,
      payment_method: order.paymentMethod ?? null,
      paid_at: order.paidAt?.getTime() ?? null,
      carrier: order.shipment?.carrier ?? null,
      tracking_number: order.shipment?.trackingNumber ?? null,
      shipped_at: order.shipment?.shippedAt.getTime() ?? null,
      delivered_at: order.deliveredAt?.getTime() ?? null,
      completed_at: order.completedAt?.getTime() ?? null,
      cancelled_at: order.cancelledAt?.getTime() ?? null,
      cancel_reason: order.cancelReason ?? null,
      refund_cents: order.refund ? paidCents : null,
      refund_to: order.refund ? refundDestination(order.paymentMethod ?? null) : null,
      refund_status: order.refund?.status ?? null,
      refund_created_at: order.refund?.createdAt.getTime() ?? null,
    },
    items: lines.map((line, position) => ({
      user_id: userId,
      order_id: order.orderId,
      line_no: position + 1,
      sku: line.product.sku,
      name: line.product.name,
      spec: line.product.spec,
      includes: JSON.stringify(line.product.includes),
      quantity: line.quantity,
      unit_price_cents: line.product.priceCents,
    })),
  };
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

function parseList(json: JsonList): string[] {
  const value: unknown = typeof json === 'string' ? JSON.parse(json) : json;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
