import type { Database } from 'better-sqlite3';
import type { NewOrder, Product } from './order-rows.ts';
import { SqliteOrderRepository } from './sqlite-order-repository.ts';

/** The catalogue, as knowledge/products/*.md lists it (SKUs, prices, stock). */
export const NOVASHOP_PRODUCTS: readonly Product[] = [
  ...(
    [
      ['NS-AW12-42-SG-GPS', '深空灰色、42毫米、铝金属、GPS', 337800],
      ['NS-AW12-42-SL-GPS', '银色、42毫米、铝金属、GPS', 337800],
      ['NS-AW12-46-SG-GPS', '深空灰色、46毫米、铝金属、GPS', 367800],
      ['NS-AW12-46-SG-CEL', '深空灰色、46毫米、铝金属、GPS + 蜂窝网络', 447800],
    ] as const
  ).map(
    ([sku, spec, priceCents]): Product => ({
      sku,
      name: 'Apple Watch Series 12',
      spec,
      includes: ['回环式运动表带'],
      priceCents,
      availability: '现货',
    }),
  ),
  ...(
    [
      ['NS-X2-BLK-M', '黑色、M码', 59900, '现货'],
      ['NS-X2-BLK-L', '黑色、L码', 59900, '现货'],
      ['NS-X2-GRY-M', '灰色、M码', 59900, '现货'],
      ['NS-X2-GRY-L', '灰色、L码', 59900, '现货'],
      ['NS-X2-GRY-XL', '灰色、XL码', 59900, '预售'],
      ['NS-X2-BLU-M', '蓝色、M码', 39900, '清仓特价'],
    ] as const
  ).map(
    ([sku, spec, priceCents, availability]): Product => ({
      sku,
      name: 'NovaTrail X2 越野跑鞋',
      spec,
      includes: [],
      priceCents,
      availability,
    }),
  ),
  ...(
    [
      ['NS-PK3-BLK-M', '黑色、M码'],
      ['NS-PK3-BLK-L', '黑色、L码'],
      ['NS-PK3-NVY-M', '藏青色、M码'],
      ['NS-PK3-NVY-L', '藏青色、L码'],
      ['NS-PK3-NVY-XL', '藏青色、XL码'],
    ] as const
  ).map(
    ([sku, spec]): Product => ({
      sku,
      name: 'NovaPeak 三合一冲锋衣',
      spec,
      includes: [],
      priceCents: 89900,
      availability: '现货',
    }),
  ),
];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The demo user's orders, one or more in every status, dated relative to `now` so the demo reads
 * naturally on any day. 88235 is the seed scenario's watch (已支付待发货, 实付 3378.00); 88229 is a
 * NovaTrail X2 already shipped (cannot be cancelled); 88016 holds two items and a coupon.
 */
export function novaShopDemoOrders(now: Date): NewOrder[] {
  const at = (offsetMs: number) => new Date(now.getTime() - offsetMs);
  return [
    {
      orderId: '88240',
      status: '待付款',
      createdAt: at(10 * MINUTE),
      items: [{ sku: 'NS-PK3-NVY-L', quantity: 1 }],
    },
    {
      orderId: '88235',
      status: '已支付待发货',
      createdAt: at(2 * HOUR),
      items: [{ sku: 'NS-AW12-42-SG-GPS', quantity: 1 }],
      paymentMethod: '支付宝',
      paidAt: at(2 * HOUR - MINUTE),
    },
    {
      orderId: '88229',
      status: '已发货',
      createdAt: at(2 * DAY),
      items: [{ sku: 'NS-X2-BLK-M', quantity: 1 }],
      paymentMethod: '微信支付',
      paidAt: at(2 * DAY - 2 * MINUTE),
      shipment: { carrier: '中通快递', trackingNumber: '73100458229164', shippedAt: at(1 * DAY) },
    },
    {
      orderId: '88197',
      status: '已签收',
      createdAt: at(6 * DAY),
      items: [{ sku: 'NS-PK3-BLK-M', quantity: 1 }],
      paymentMethod: '微信支付',
      paidAt: at(6 * DAY - MINUTE),
      shipment: { carrier: '京东物流', trackingNumber: 'JDX015583920417', shippedAt: at(5 * DAY) },
      deliveredAt: at(2 * DAY),
    },
    {
      orderId: '88150',
      status: '已取消',
      createdAt: at(20 * DAY),
      items: [{ sku: 'NS-PK3-BLK-L', quantity: 1 }],
      cancelledAt: at(20 * DAY - 30 * MINUTE),
      cancelReason: '超时未付款，系统自动取消',
    },
    {
      orderId: '88016',
      status: '已完成',
      createdAt: at(40 * DAY),
      items: [
        { sku: 'NS-X2-BLU-M', quantity: 1 },
        { sku: 'NS-PK3-NVY-M', quantity: 1 },
      ],
      discountCents: 5000,
      paymentMethod: '支付宝',
      paidAt: at(40 * DAY - MINUTE),
      shipment: { carrier: '京东物流', trackingNumber: 'JDX014920384756', shippedAt: at(39 * DAY) },
      deliveredAt: at(37 * DAY),
      completedAt: at(22 * DAY),
    },
  ];
}

export interface SeedSummary {
  /** Rows inserted by this call: 0 and 0 when the demo was already seeded. */
  productsInserted: number;
  ordersInserted: number;
}

/**
 * Seed the catalogue and the user's demo orders. Idempotent: what exists is left alone, so a second
 * start-up neither duplicates an order nor brings back one the user cancelled.
 */
export function seedNovaShop(
  target: SqliteOrderRepository | Database,
  userId: string,
  options: { now?: Date } = {},
): SeedSummary {
  const repository = target instanceof SqliteOrderRepository ? target : new SqliteOrderRepository(target);
  const productsInserted = repository.insertProducts(NOVASHOP_PRODUCTS);
  const ordersInserted = repository.insertOrders(userId, novaShopDemoOrders(options.now ?? new Date()));
  return { productsInserted, ordersInserted };
}

/** Where the seed can be written asynchronously: `PostgresOrderRepository`. */
export interface AsyncSeedTarget {
  insertProducts(products: readonly Product[]): Promise<number>;
  insertOrders(userId: string, orders: readonly NewOrder[]): Promise<number>;
}

/**
 * `seedNovaShop` for a store whose writes are asynchronous, with the same catalogue and orders.
 * Idempotent in the same way, also when two instances seed at once (each row is inserted once).
 */
export async function seedNovaShopAsync(
  repository: AsyncSeedTarget,
  userId: string,
  options: { now?: Date } = {},
): Promise<SeedSummary> {
  const productsInserted = await repository.insertProducts(NOVASHOP_PRODUCTS);
  const ordersInserted = await repository.insertOrders(userId, novaShopDemoOrders(options.now ?? new Date()));
  return { productsInserted, ordersInserted };
}
