import { readFileSync } from 'node:fs';
import { ToolError } from 'runstream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_USER, OTHER_USER, SEED_NOW } from '../test-support/novashop-fixture.ts';
import { describeItems, ORDER_STATUSES, type OrderRepository, type OrderStatus } from './order-repository.ts';
import type { Product } from './order-rows.ts';
import { NOVASHOP_PRODUCTS, type SeedSummary } from './seed-novashop.ts';

/** One store's `OrderRepository`, with what the suite needs to look behind it. */
export interface OrderRepositoryUnderTest {
  /** Seeded for `DEMO_USER` at `SEED_NOW`, nobody else; cancellations read `CANCEL_NOW`. */
  orders: OrderRepository;
  /** Seed the catalogue and the user's demo orders again, dated relative to `now`. */
  seed(userId: string, now: Date): Promise<SeedSummary>;
  listProducts(): Promise<Product[]>;
  /** How many rows the three tables hold. */
  rowCounts(): Promise<{ products: number; orders: number; items: number }>;
  /** `refund_cents` of each row holding that user's order (one row, or none). */
  refundCents(userId: string, orderId: string): Promise<(number | null)[]>;
  close(): Promise<void>;
}

/**
 * The behaviour every `OrderRepository` shares, on the NovaShop seed: `open` gives each test a
 * freshly seeded store, `close` runs after it.
 */
export function describeOrderRepositoryConformance(
  name: string,
  open: () => Promise<OrderRepositoryUnderTest>,
): void {
  describe(name, () => {
    let shop: OrderRepositoryUnderTest;

    beforeEach(async () => {
      shop = await open();
    });

    afterEach(async () => {
      await shop.close();
    });

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
          createdAt: '2026-10-12T04:00:00.000Z',
          paidAmount: '3378.00',
          goodsAmount: '3378.00',
          shippingFee: '0.00',
          paymentMethod: '支付宝',
          paidAt: '2026-10-12T04:01:00.000Z',
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

      it('sells every SKU the product pages list, at their prices', async () => {
        const pages = ['apple-watch-series-12', 'novatrail-x2', 'novapeak-jacket']
          .map((page) => readFileSync(new URL(`../knowledge/products/${page}.md`, import.meta.url), 'utf8'))
          .join('\n');
        const listed = [...pages.matchAll(/（(NS-[A-Z0-9-]+)）(?:售价|清仓特价) (\d+) 元/g)].map((match) => [
          match[1],
          Number(match[2]),
        ]);
        expect(listed).toHaveLength(NOVASHOP_PRODUCTS.length);
        const products = await shop.listProducts();
        const sold = products.map((product) => [product.sku, product.priceCents / 100]);
        expect(sold.sort()).toEqual(listed.sort());
        expect(products.find((product) => product.sku === 'NS-X2-GRY-XL')?.availability).toBe('预售');
        expect(products.find((product) => product.sku === 'NS-X2-BLU-M')?.availability).toBe('清仓特价');
        expect(products.find((product) => product.sku === 'NS-AW12-42-SG-GPS')?.includes).toEqual([
          '回环式运动表带',
        ]);
      });

      it('does not duplicate anything when run twice, nor undo a cancellation', async () => {
        const before = await shop.rowCounts();
        expect(before).toEqual({ products: NOVASHOP_PRODUCTS.length, orders: 6, items: 7 });
        await shop.orders.cancelOrder(DEMO_USER, '88235');
        expect(await shop.seed(DEMO_USER, new Date())).toEqual({ productsInserted: 0, ordersInserted: 0 });
        expect(await shop.rowCounts()).toEqual(before);
        expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已取消');
      });

      it('seeds another user separately: orders are per user', async () => {
        expect(await shop.seed(OTHER_USER, SEED_NOW)).toEqual({ productsInserted: 0, ordersInserted: 6 });
        await shop.orders.cancelOrder(OTHER_USER, '88235');
        expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
      });
    });

    describe('reading orders', () => {
      it('lists newest first, with a limit and a status filter', async () => {
        const all = await shop.orders.listOrders(DEMO_USER, { limit: 10 });
        expect(all.map((order) => order.orderId)).toEqual([
          '88240',
          '88235',
          '88229',
          '88197',
          '88150',
          '88016',
        ]);
        expect((await shop.orders.listOrders(DEMO_USER, { limit: 2 })).map((order) => order.orderId)).toEqual(
          ['88240', '88235'],
        );
        const shipped = await shop.orders.listOrders(DEMO_USER, { limit: 10, status: '已发货' });
        expect(shipped.map((order) => [order.orderId, order.shipment?.carrier])).toEqual([
          ['88229', '中通快递'],
        ]);
      });

      it('holds the limit to 1–50', async () => {
        expect(await shop.orders.listOrders(DEMO_USER, { limit: 0 })).toHaveLength(1);
        expect(await shop.orders.listOrders(DEMO_USER, { limit: 500 })).toHaveLength(6);
      });

      it('keeps amounts exact: two items, a coupon', async () => {
        const order = await shop.orders.getOrder(DEMO_USER, '88016');
        expect(order).toMatchObject({ goodsAmount: '1298.00', discount: '50.00', paidAmount: '1248.00' });
        expect(order?.items.map((item) => item.sku)).toEqual(['NS-X2-BLU-M', 'NS-PK3-NVY-M']);
      });

      it('reads the same order whether listed or fetched alone', async () => {
        const listed = await shop.orders.listOrders(DEMO_USER, { limit: 10 });
        for (const order of listed)
          expect(await shop.orders.getOrder(DEMO_USER, order.orderId)).toEqual(order);
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
          refund: {
            amount: '3378.00',
            to: '原路退回（支付宝）',
            status: '已发起',
            createdAt: '2026-10-12T06:05:00.000Z',
          },
        });
        expect(await shop.orders.getOrder(DEMO_USER, '88235')).toEqual(order);
      });

      it('is idempotent: cancelling again returns the same order, with no second refund', async () => {
        const first = await shop.orders.cancelOrder(DEMO_USER, '88235');
        const second = await shop.orders.cancelOrder(DEMO_USER, '88235');
        expect(second).toEqual(first);
        expect(await shop.refundCents(DEMO_USER, '88235')).toEqual([337800]);
      });

      it('cancels an unpaid order without a refund', async () => {
        expect(await shop.orders.cancelOrder(DEMO_USER, '88240')).toMatchObject({
          status: '已取消',
          refund: null,
        });
        expect(await shop.refundCents(DEMO_USER, '88240')).toEqual([null]);
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
          const policy = readFileSync(
            new URL('../knowledge/policies/order-changes.md', import.meta.url),
            'utf8',
          );
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
  });
}
