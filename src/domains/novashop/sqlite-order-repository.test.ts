import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../runtime/tool.ts';
import { describeItems, ORDER_STATUSES, type OrderStatus } from './order-repository.ts';
import { NOVASHOP_PRODUCTS, seedNovaShop } from './seed-novashop.ts';
import { SqliteOrderRepository } from './sqlite-order-repository.ts';
import {
  DEMO_USER,
  OTHER_USER,
  openSeededShop,
  SEED_NOW,
  type SeededShop,
} from './test-support/novashop-fixture.ts';

let shop: SeededShop;

beforeEach(() => {
  shop = openSeededShop();
});

afterEach(() => {
  shop.close();
});

const count = (table: string) =>
  (shop.database.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

async function refusal(orderId: string): Promise<ToolError> {
  const error = await shop.orders.cancelOrder(DEMO_USER, orderId).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('the seed', () => {
  it('has the seed scenario watch: order 88235, 已支付待发货, 实付 3378.00', async () => {
    const order = await shop.orders.getOrder(DEMO_USER, '88235');
    expect(order).toMatchObject({
      orderId: '88235',
      status: '已支付待发货',
      paidAmount: '3378.00',
      goodsAmount: '3378.00',
      shippingFee: '0.00',
      paymentMethod: '支付宝',
      shipment: null,
      refund: null,
    });
    expect(order?.items).toEqual([
      {
        sku: 'NS-AW12-42-SG-GPS',
        name: 'Apple Watch Series 12',
        spec: '深空灰色、42毫米、铝金属、GPS',
        includes: ['回环式运动表带'],
        quantity: 1,
        unitPrice: '3378.00',
        subtotal: '3378.00',
      },
    ]);
    expect(describeItems(order?.items ?? [])).toBe(
      'Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带',
    );
  });

  it('gives the demo user an order in every status', async () => {
    const orders = await shop.orders.listOrders(DEMO_USER, { limit: 20 });
    expect(new Set(orders.map((order) => order.status))).toEqual(new Set(ORDER_STATUSES));
  });

  it('sells every SKU the product pages list, at their prices', () => {
    const pages = ['apple-watch-series-12', 'novatrail-x2', 'novapeak-jacket']
      .map((page) => readFileSync(new URL(`./knowledge/products/${page}.md`, import.meta.url), 'utf8'))
      .join('\n');
    const listed = [...pages.matchAll(/（(NS-[A-Z0-9-]+)）(?:售价|清仓特价) (\d+) 元/g)].map((match) => [
      match[1],
      Number(match[2]),
    ]);
    expect(listed).toHaveLength(NOVASHOP_PRODUCTS.length);
    const sold = shop.orders.listProducts().map((product) => [product.sku, product.priceCents / 100]);
    expect(sold.sort()).toEqual(listed.sort());
    expect(shop.orders.listProducts().find((product) => product.sku === 'NS-X2-GRY-XL')?.availability).toBe(
      '预售',
    );
    expect(shop.orders.listProducts().find((product) => product.sku === 'NS-X2-BLU-M')?.availability).toBe(
      '清仓特价',
    );
  });

  it('does not duplicate anything when run twice, nor undo a cancellation', async () => {
    const before = [count('novashop_products'), count('novashop_orders'), count('novashop_order_items')];
    await shop.orders.cancelOrder(DEMO_USER, '88235');
    expect(seedNovaShop(shop.database, DEMO_USER, { now: new Date() })).toEqual({
      productsInserted: 0,
      ordersInserted: 0,
    });
    expect([count('novashop_products'), count('novashop_orders'), count('novashop_order_items')]).toEqual(
      before,
    );
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已取消');
  });

  it('seeds another user separately: orders are per user', async () => {
    expect(seedNovaShop(new SqliteOrderRepository(shop.database), OTHER_USER, { now: SEED_NOW })).toEqual({
      productsInserted: 0,
      ordersInserted: 6,
    });
    await shop.orders.cancelOrder(OTHER_USER, '88235');
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
  });
});

describe('reading orders', () => {
  it('lists newest first, with a limit and a status filter', async () => {
    const all = await shop.orders.listOrders(DEMO_USER, { limit: 10 });
    expect(all.map((order) => order.orderId)).toEqual(['88240', '88235', '88229', '88197', '88150', '88016']);
    expect((await shop.orders.listOrders(DEMO_USER, { limit: 2 })).map((order) => order.orderId)).toEqual([
      '88240',
      '88235',
    ]);
    const shipped = await shop.orders.listOrders(DEMO_USER, { limit: 10, status: '已发货' });
    expect(shipped.map((order) => [order.orderId, order.shipment?.carrier])).toEqual([['88229', '中通快递']]);
  });

  it('keeps amounts exact: two items, a coupon', async () => {
    const order = await shop.orders.getOrder(DEMO_USER, '88016');
    expect(order).toMatchObject({ goodsAmount: '1298.00', discount: '50.00', paidAmount: '1248.00' });
    expect(order?.items.map((item) => item.sku)).toEqual(['NS-X2-BLU-M', 'NS-PK3-NVY-M']);
  });

  it("never shows another user's orders", async () => {
    expect(await shop.orders.getOrder(OTHER_USER, '88235')).toBeUndefined();
    expect(await shop.orders.listOrders(OTHER_USER, { limit: 10 })).toEqual([]);
  });
});

describe('cancelling', () => {
  it('cancels a paid, unshipped order and starts one refund to the original payment method', async () => {
    const order = await shop.orders.cancelOrder(DEMO_USER, '88235');
    expect(order).toMatchObject({
      status: '已取消',
      cancelReason: '买家取消',
      cancelledAt: '2026-10-12T06:05:00.000Z',
      refund: { amount: '3378.00', to: '原路退回（支付宝）', status: '已发起' },
    });
  });

  it('is idempotent: cancelling again returns the same order, with no second refund', async () => {
    const first = await shop.orders.cancelOrder(DEMO_USER, '88235');
    const second = await shop.orders.cancelOrder(DEMO_USER, '88235');
    expect(second).toEqual(first);
    const rows = shop.database
      .prepare('SELECT refund_cents FROM novashop_orders WHERE order_id = ? AND user_id = ?')
      .all('88235', DEMO_USER);
    expect(rows).toEqual([{ refund_cents: 337800 }]);
  });

  it('cancels an unpaid order without a refund', async () => {
    expect(await shop.orders.cancelOrder(DEMO_USER, '88240')).toMatchObject({
      status: '已取消',
      refund: null,
    });
  });

  it('returns an order cancelled long ago as it is', async () => {
    expect(await shop.orders.cancelOrder(DEMO_USER, '88150')).toMatchObject({
      status: '已取消',
      cancelReason: '超时未付款，系统自动取消',
      refund: null,
    });
  });

  it.each([
    ['88229', '已发货', 'order_shipped', '已发货订单不能直接取消，可以申请物流拦截，或在签收后申请退货'],
    ['88197', '已签收', 'order_delivered', '已签收订单不能取消，不需要的商品请按退货政策申请退货'],
    ['88016', '已完成', 'order_completed', '已完成订单不能取消，也不再受理无理由退货'],
  ] as const)(
    'refuses order %s (%s) with %s, saying what to do instead',
    async (orderId, status, code, rule) => {
      const error = await refusal(orderId);
      expect(error.code).toBe(code);
      expect(error.message).toContain(rule);
      // The rule is order-changes.md's own sentence, not a paraphrase.
      const policy = readFileSync(new URL('./knowledge/policies/order-changes.md', import.meta.url), 'utf8');
      expect(policy).toContain(rule);
      expect((await shop.orders.getOrder(DEMO_USER, orderId))?.status).toBe(status satisfies OrderStatus);
    },
  );

  it('refuses an order that does not exist, or is not this user’s', async () => {
    expect((await refusal('99999')).code).toBe('order_not_found');
    const error = await shop.orders.cancelOrder(OTHER_USER, '88235').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'order_not_found' });
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
  });
});
