import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNovaShopDomain } from './index.ts';
import { DEMO_USER, openSeededShop, type SeededShop } from './test-support/novashop-fixture.ts';

let shop: SeededShop;
beforeEach(() => {
  shop = openSeededShop();
});
afterEach(() => shop.close());

describe('createNovaShopDomain', () => {
  it('wires tools, skills, orders, the demo model and the seed to one database', async () => {
    const domain = createNovaShopDomain({
      database: shop.database,
      knowledge: { search: async () => ({ hits: [], lowEvidence: true }) },
    });
    expect(domain.tools.map((tool) => tool.name)).toEqual([
      'query_order',
      'cancel_order',
      'search_knowledge',
    ]);
    expect(domain.skills.map((skill) => skill.name)).toEqual([
      'order-change',
      'returns-and-refunds',
      'shipping-and-size',
    ]);
    expect(domain.model.name).toBe('novashop-demo');
    expect(await domain.seed('user_new')).toEqual({ productsInserted: 0, ordersInserted: 6 });
    expect(await domain.seed('user_new')).toEqual({ productsInserted: 0, ordersInserted: 0 });
    expect((await domain.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
  });

  it('reads the knowledge documents citations name, and only those', async () => {
    const { sources } = createNovaShopDomain({
      database: shop.database,
      knowledge: { search: async () => ({ hits: [], lowEvidence: true }) },
    });
    expect(await sources.read('knowledge/policies/order-changes.md')).toMatchObject({
      path: 'knowledge/policies/order-changes.md',
      title: 'NovaShop 订单变更规则',
      text: expect.stringContaining('已发货订单不能直接取消'),
    });
    expect(await sources.read('knowledge/products/novatrail-x2.md')).toMatchObject({
      title: expect.any(String),
    });
    for (const path of [
      'knowledge/eval/dev.jsonl',
      'README.md',
      'skills/order-change.md',
      'knowledge/../README.md',
      '../../../package.json',
      'knowledge/policies/../../../../../package.json',
    ])
      expect([path, await sources.read(path)]).toEqual([path, undefined]);
  });
});
