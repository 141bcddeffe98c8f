import { ToolError } from 'runstream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type KnowledgeSearch, searchKnowledgeTool } from '../../../src/agent/search-knowledge-tool.ts';
import { seedCancelOrderEvents } from '../../../src/protocol/test-support/seed-cancel-order.ts';
import {
  DEMO_USER,
  OTHER_USER,
  openNovaShopKnowledge,
  openSeededShop,
  type SeededShop,
  toolContext,
} from '../test-support/novashop-fixture.ts';
import { createCancelOrderTool } from './cancel-order.ts';
import { createNovaShopTools } from './create-novashop-tools.ts';
import { createQueryOrderTool } from './query-order.ts';

let shop: SeededShop;

beforeEach(() => {
  shop = openSeededShop();
});

afterEach(() => {
  shop.close();
});

const context = toolContext();

describe('query_order', () => {
  const tool = () => createQueryOrderTool(shop.orders);

  it('is a read tool titled 订单查询 whose arguments are optional', () => {
    expect(tool()).toMatchObject({ name: 'query_order', title: '订单查询', readOnly: true });
    expect(tool().requiresSkill).toBeUndefined();
    expect((tool().inputSchema as z.ZodType).parse({})).toEqual({});
  });

  it('lists the 10 most recent orders by default, items and amounts as strings, status in Chinese', async () => {
    const result = await tool().execute({}, context);
    expect(result.orders).toHaveLength(6);
    const watch = result.orders.find((order) => order.orderId === '88235');
    expect(watch).toMatchObject({ status: '已支付待发货', paidAmount: '3378.00' });
    expect(watch?.items[0]).toMatchObject({ name: 'Apple Watch Series 12', unitPrice: '3378.00' });
  });

  it('honours limit and status', async () => {
    expect((await tool().execute({ limit: 1 }, context)).orders.map((order) => order.orderId)).toEqual([
      '88240',
    ]);
    const done = await tool().execute({ status: '已完成' }, context);
    expect(done.orders.map((order) => order.orderId)).toEqual(['88016']);
  });

  it('finds one order by number, and refuses an unknown one with a Chinese message', async () => {
    expect((await tool().execute({ orderId: '88229' }, context)).orders[0]?.shipment).toMatchObject({
      carrier: '中通快递',
    });
    await expect(tool().execute({ orderId: '12345' }, context)).rejects.toMatchObject({
      code: 'order_not_found',
      message: expect.stringContaining('没有找到订单 12345'),
    });
  });

  it("acts for the run's owner only", async () => {
    expect((await tool().execute({}, toolContext(OTHER_USER))).orders).toEqual([]);
    await expect(tool().execute({ orderId: '88235' }, toolContext(OTHER_USER))).rejects.toBeInstanceOf(
      ToolError,
    );
  });

  it('validates its arguments: limit 1–20, a known status', () => {
    const parameters = tool().inputSchema as z.ZodType;
    expect(parameters.safeParse({ limit: 0 }).success).toBe(false);
    expect(parameters.safeParse({ limit: 21 }).success).toBe(false);
    expect(parameters.safeParse({ limit: 2.5 }).success).toBe(false);
    expect(parameters.safeParse({ status: 'shipped' }).success).toBe(false);
    expect(parameters.parse({ orderId: ' 88235 ', limit: 20, status: '已发货' })).toEqual({
      orderId: '88235',
      limit: 20,
      status: '已发货',
    });
  });

  it('has a JSON Schema the model can read', () => {
    const schema = z.toJSONSchema(tool().inputSchema as z.ZodType, { target: 'draft-7' }) as {
      properties: Record<string, { description?: string }>;
      required?: string[];
    };
    expect(Object.keys(schema.properties)).toEqual(['orderId', 'limit', 'status']);
    expect(schema.required ?? []).toEqual([]);
    expect(schema.properties.limit?.description).toContain('默认 10');
  });

  it('honours the signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(tool().execute({}, { ...context, signal: controller.signal })).rejects.toThrow('stopped');
  });
});

describe('cancel_order', () => {
  const tool = () => createCancelOrderTool(shop.orders);

  it('is a write tool titled 取消订单, unlocked by the order-change skill', () => {
    expect(tool()).toMatchObject({ name: 'cancel_order', title: '取消订单', requiresSkill: 'order-change' });
    // Not read-only, and no needsApproval of its own: every call waits for the shopper's approval.
    expect(tool().readOnly).toBeUndefined();
    expect(tool().needsApproval).toBeUndefined();
    expect((tool().inputSchema as z.ZodType).safeParse({}).success).toBe(false);
  });

  it("asks for confirmation with the seed's card for order 88235", async () => {
    const card = await tool().confirmation?.({ orderId: '88235' }, context);
    const seedCard = seedCancelOrderEvents().find(
      (event) => event.type === 'block.started' && event.kind === 'confirm',
    );
    expect(card).toEqual({
      title: '取消订单',
      description: '订单 88235 · Apple Watch Series 12',
      fields: [
        { label: '订单号', value: '88235' },
        { label: '商品', value: 'Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带' },
        { label: '实付金额', value: '¥3378.00' },
        { label: '订单状态', value: '已支付待发货' },
      ],
    });
    // The card the runtime shows is the same: `fields` travel as the confirm block's `details`.
    expect(seedCard).toMatchObject({
      title: card?.title,
      description: card?.description,
      details: card?.fields,
    });
    // Confirming changes nothing.
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
  });

  it('says 应付金额 for an order not paid yet', async () => {
    const card = await tool().confirmation?.({ orderId: '88240' }, context);
    expect(card?.fields[2]).toEqual({ label: '应付金额', value: '¥899.00' });
  });

  it('builds the card in English when asked (the shopper wrote in English)', async () => {
    expect((tool().inputSchema as z.ZodType).parse({ orderId: '88240', language: 'en' })).toEqual({
      orderId: '88240',
      language: 'en',
    });
    const card = await tool().confirmation?.({ orderId: '88240', language: 'en' }, context);
    expect(card).toEqual({
      title: 'Cancel order',
      description: 'Order 88240 · NovaPeak 三合一冲锋衣',
      fields: [
        { label: 'Order number', value: '88240' },
        { label: 'Items', value: expect.stringContaining('NovaPeak 三合一冲锋衣') },
        { label: 'Amount due', value: '¥899.00' },
        { label: 'Status', value: 'Awaiting payment (待付款)' },
      ],
    });
  });

  it.each([
    ['88229', 'order_shipped', '可以申请物流拦截，或在签收后申请退货'],
    ['88197', 'order_delivered', '请按退货政策申请退货'],
    ['88016', 'order_completed', '也不再受理无理由退货'],
    ['88150', 'order_already_cancelled', '无需再次取消'],
    ['99999', 'order_not_found', '请核对订单号'],
  ])('refuses %s before any card: %s', async (orderId, code, words) => {
    await expect(tool().confirmation?.({ orderId }, context)).rejects.toMatchObject({
      code,
      message: expect.stringContaining(words),
    });
  });

  it('cancels on execute, with the refund, and a second execute does not refund again', async () => {
    const result = await tool().execute({ orderId: '88235' }, context);
    expect(result).toEqual({
      orderId: '88235',
      status: '已取消',
      items: 'Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带',
      paidAmount: '3378.00',
      cancelledAt: '2026-10-12T06:05:00.000Z',
      refund: {
        amount: '3378.00',
        to: '原路退回（支付宝）',
        status: '已发起',
        createdAt: '2026-10-12T06:05:00.000Z',
      },
      alreadyCancelled: false,
      message: '订单 88235 已取消，3378.00 元的退款已发起，原路退回（支付宝）。',
    });
    const again = await tool().execute({ orderId: '88235' }, context);
    expect(again).toMatchObject({ alreadyCancelled: true, refund: result.refund });
  });

  it('refuses to execute on a shipped order even without a card', async () => {
    await expect(tool().execute({ orderId: '88229' }, context)).rejects.toMatchObject({
      code: 'order_shipped',
    });
  });
});

describe('search_knowledge', () => {
  it('maps hits to evidence: text, context, section (heading path joined by ›), citation', async () => {
    const calls: unknown[] = [];
    const knowledge: KnowledgeSearch = {
      async search(query, options) {
        calls.push({ query, topK: options.topK, hasSignal: options.signal !== undefined });
        return {
          lowEvidence: false,
          hits: [
            {
              text: 'NovaTrail X2 签收后 7 个自然日内可申请退货；',
              context: 'NovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好。',
              title: 'NovaShop 退货政策',
              headingPath: ['NovaShop 退货政策', '五、NovaTrail X2 专项规定', '退货时限与条件'],
              source: { citation: 'knowledge/policies/return-policy.md#L66' },
            },
            { text: '无标题', title: 'faq', headingPath: [], source: { citation: 'knowledge/faq.json#L1' } },
          ],
        };
      },
    };
    const tool = searchKnowledgeTool(knowledge);
    expect(tool).toMatchObject({ name: 'search_knowledge', title: '知识检索', effect: 'read' });
    expect(await tool.execute({ query: 'X2 退货' }, context)).toEqual({
      query: 'X2 退货',
      lowEvidence: false,
      hits: [
        {
          text: 'NovaTrail X2 签收后 7 个自然日内可申请退货；',
          context: 'NovaTrail X2 签收后 7 个自然日内可申请退货；商品需保持完好。',
          section: 'NovaShop 退货政策 › 五、NovaTrail X2 专项规定 › 退货时限与条件',
          citation: 'knowledge/policies/return-policy.md#L66',
          contextCitations: ['knowledge/policies/return-policy.md#L66'],
        },
        // Without a context of its own (a fake search), the clause stands in for it.
        {
          text: '无标题',
          context: '无标题',
          section: 'faq',
          citation: 'knowledge/faq.json#L1',
          contextCitations: ['knowledge/faq.json#L1'],
        },
      ],
    });
    expect(calls).toEqual([{ query: 'X2 退货', topK: 4, hasSignal: true }]);
  });

  it('validates its arguments: a query, topK 1–8', () => {
    const { parameters } = searchKnowledgeTool({
      search: async () => ({ hits: [], lowEvidence: true }),
    });
    expect(parameters.safeParse({ query: '   ' }).success).toBe(false);
    expect(parameters.safeParse({ query: '退货', topK: 9 }).success).toBe(false);
    expect(parameters.parse({ query: ' 退货 ', topK: 8 })).toEqual({ query: '退货', topK: 8 });
  });

  describe('over the real knowledge base', () => {
    let knowledge: Awaited<ReturnType<typeof openNovaShopKnowledge>>;
    beforeAll(async () => {
      knowledge = await openNovaShopKnowledge();
    });
    afterAll(() => knowledge.close());

    it('returns the clause for a shipped order in its passage, cited, each passage once', async () => {
      const tool = searchKnowledgeTool(knowledge.knowledge);
      const result = await tool.execute({ query: '已发货订单不能直接取消 物流拦截', topK: 3 }, context);
      expect(result.lowEvidence).toBe(false);
      expect(result.hits[0]).toMatchObject({
        text: '已发货订单不能直接取消，可以申请物流拦截，或在签收后申请退货。',
        section: 'NovaShop 订单变更规则 › 二、取消订单',
        citation: 'knowledge/policies/order-changes.md#L21',
      });
      // The list the clause is an item of, around it: what the other cancellation rules say.
      expect(result.hits[0]?.context).toContain('已支付待发货订单可以在订单详情页直接取消');
      expect(result.hits[0]?.context).toContain(result.hits[0]?.text);
      // Each line of the passage has its own citation: the list's items are on lines of their own.
      const [first] = result.hits;
      const lines = first?.context.split('\n') ?? [];
      expect(first?.contextCitations).toHaveLength(lines.length);
      expect(first?.contextCitations[lines.findIndex((line) => line.includes(first.text))]).toBe(
        first?.citation,
      );
      expect(new Set(first?.contextCitations).size).toBe(lines.length);
      expect(new Set(result.hits.map((hit) => hit.context)).size).toBe(result.hits.length);
    });
  });
});

describe('createNovaShopTools', () => {
  it("makes the two order tools (search_knowledge comes from the agent's knowledge)", () => {
    const tools = createNovaShopTools({ orders: shop.orders });
    expect(tools.map((tool) => [tool.name, tool.readOnly ?? false, tool.requiresSkill])).toEqual([
      ['query_order', true, undefined],
      ['cancel_order', false, 'order-change'],
    ]);
  });

  it('with delayMs answers that much later, its work half way through, and honours the signal while waiting', async () => {
    const [, cancel] = createNovaShopTools({
      orders: shop.orders,
      delayMs: 200,
    });
    const started = performance.now();
    const cancelling = cancel?.execute({ orderId: '88235' }, context);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Half way: the write is done, its answer is still on its way back.
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已取消');
    await expect(cancelling).resolves.toMatchObject({ orderId: '88235', status: '已取消' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);

    const stop = new AbortController();
    const [query] = createNovaShopTools({
      orders: shop.orders,
      delayMs: 10_000,
    });
    const querying = query?.execute({}, { ...context, signal: stop.signal });
    stop.abort(new Error('stopped'));
    await expect(querying).rejects.toThrow('stopped');
  });
});
