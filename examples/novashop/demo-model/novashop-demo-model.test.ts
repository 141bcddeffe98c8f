import type { ChatRequest, ChatStreamPart } from 'runstream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeSearch } from '../../../src/agent/search-knowledge-tool.ts';
import { turnProblems } from '../../../src/models/test-support/turn-problems.ts';
import { seedCancelOrderEvents } from '../../../src/protocol/test-support/seed-cancel-order.ts';
import type { AnyTool } from '../../../src/runtime/tools/tool.ts';
import { expectGroundedQuotes } from '../test-support/grounded-quotes.ts';
import { type DrivenTurn, ModelDriver } from '../test-support/model-driver.ts';
import {
  DEMO_USER,
  openNovaShopKnowledge,
  openSeededShop,
  type SeededShop,
} from '../test-support/novashop-fixture.ts';
import { loadNovaShopSkills, novaShopRuntimeTools } from '../test-support/novashop-knowledge.ts';
import { NovaShopDemoModel } from './novashop-demo-model.ts';

let knowledge: Awaited<ReturnType<typeof openNovaShopKnowledge>>;
let shop: SeededShop;
let tools: AnyTool[];
const skills = loadNovaShopSkills();

beforeAll(async () => {
  knowledge = await openNovaShopKnowledge();
});
afterAll(() => knowledge.close());

beforeEach(() => {
  shop = openSeededShop();
  tools = novaShopRuntimeTools(shop.orders, knowledge.knowledge);
});
afterEach(() => shop.close());

function driver(options: { knowledge?: KnowledgeSearch } = {}): ModelDriver {
  const chosenTools = options.knowledge ? novaShopRuntimeTools(shop.orders, options.knowledge) : tools;
  return new ModelDriver({ model: new NovaShopDemoModel(), tools: chosenTools, skills });
}

/** Drive until the model answers without calling a tool (at most `limit` turns). */
async function converse(
  model: ModelDriver,
  question: string,
  decision: 'approve' | 'reject' = 'approve',
  limit = 8,
): Promise<DrivenTurn> {
  model.say(question);
  for (let turn = 0; turn < limit; turn += 1) {
    const result = await model.turn();
    if (result.calls.length === 0) return result;
    await model.runCalls(() => decision);
  }
  throw new Error(`no answer after ${limit} turns`);
}

function callSequence(model: ModelDriver): string[] {
  return model.turns.flatMap((turn) => turn.calls.map((call) => `${call.name} ${call.arguments}`));
}

function expectWellFormed(model: ModelDriver): void {
  for (const turn of model.turns) {
    expect(turn.problems).toEqual([]);
    const deltas = turn.parts.flatMap((part) =>
      part.type === 'text-delta' || part.type === 'reasoning-delta' ? [part.text] : [],
    );
    for (const delta of deltas) expect(Array.from(delta).length).toBeGreaterThanOrEqual(2);
    for (const delta of deltas) expect(Array.from(delta).length).toBeLessThanOrEqual(6);
    for (const call of turn.calls) {
      const fragments = turn.parts.filter((part) => part.type === 'tool-call-delta' && part.id === call.id);
      expect(fragments.length).toBeGreaterThanOrEqual(2);
    }
  }
}

describe('seed 002: cancel the unshipped watch', () => {
  const question = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

  it('thinks, loads order-change, queries 10 orders, says it found the watch, calls cancel_order', async () => {
    const model = driver().say(question);

    const first = await model.turn();
    expect(first.offered).toEqual(['load_skill', 'query_order', 'search_knowledge']);
    expect(first.reasoning).toContain('先看订单变更的办理流程');
    expect(first.text).toBe('我先看下取消订单的具体办理流程。');
    expect(first.calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['load_skill', { name: 'order-change' }],
    ]);
    // The parts come in the seed's order: reasoning, answer, tool call.
    const kinds = [...new Set(first.parts.map((part) => part.type))];
    expect(kinds).toEqual([
      'reasoning-delta',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ]);
    await model.runCalls();

    const second = await model.turn();
    expect(second.offered).toContain('cancel_order');
    expect(second.reasoning).toBe('手册要求先查订单状态，再决定能不能直接取消。查最近10笔订单。');
    expect(second.text).toBe('');
    expect(second.calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['query_order', { limit: 10 }],
    ]);
    await model.runCalls();

    const third = await model.turn();
    expect(third.reasoning).toBe('订单88235已支付待发货，可以直接取消。取消是写操作，要先请用户确认。');
    expect(third.text.startsWith('找到你的Apple Watch订单了')).toBe(true);
    expect(third.text.endsWith('我这就提交取消。')).toBe(true);
    // Quoted from query_order's result: the number, the item and the amount.
    expect(third.text).toContain('订单 88235');
    expect(third.text).toContain('Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带');
    expect(third.text).toContain('实付 3378.00 元');
    expect(third.calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['cancel_order', { orderId: '88235' }],
    ]);
    expect(third.parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });

    // The runtime would pause here on this card: the seed's card.
    const runs = await model.runCalls(() => 'approve');
    const seedCard = seedCancelOrderEvents().find(
      (event) => event.type === 'block.started' && event.kind === 'confirm',
    );
    expect(seedCard).toMatchObject(runs[0]?.card ?? { missing: true });

    const fourth = await model.turn();
    expect(fourth.calls).toEqual([]);
    expect(fourth.text).toBe(
      '已为你取消订单 88235，商品是 Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带。' +
        '3378.00 元的退款已发起，原路退回（支付宝）。取消后不能撤回，之后还想要的话需要重新下单。',
    );
    expect(fourth.parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(callSequence(model)).toEqual([
      'load_skill {"name":"order-change"}',
      'query_order {"limit":10}',
      'cancel_order {"orderId":"88235"}',
    ]);
    expectWellFormed(model);
    const order = await shop.orders.getOrder(DEMO_USER, '88235');
    expect(order).toMatchObject({ status: '已取消', refund: { amount: '3378.00' } });
  });

  it('keeps the order when the shopper rejects the card', async () => {
    const model = driver();
    const answer = await converse(model, question, 'reject');
    expect(answer.text).toBe('好的，订单 88235 没有取消，会照常处理。之后如果还想取消，在发货前告诉我就行。');
    expect(model.cards).toHaveLength(1);
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
    expectWellFormed(model);
  });

  it('reports a failed cancellation in the tool’s own words', async () => {
    const model = driver().say(question);
    for (let turn = 0; turn < 2; turn += 1) {
      await model.turn();
      await model.runCalls();
    }
    const third = await model.turn();
    const [call] = third.calls;
    model.messages.push({
      role: 'tool',
      toolCallId: call?.id ?? '',
      content: JSON.stringify({
        error: {
          code: 'order_shipped',
          message: '订单 88235 已发货，已发货订单不能直接取消，可以申请物流拦截，或在签收后申请退货。',
        },
      }),
    });
    const answer = await model.turn();
    expect(answer.calls).toEqual([]);
    expect(answer.text).toContain('订单 88235 没有取消成功：订单 88235 已发货');
    expect(answer.text).toContain('人工客服');
  });

  it('is robust to being asked again: the same request gives the same turn', async () => {
    const model = driver().say(question);
    await model.turn();
    await model.runCalls();
    const request: ChatRequest = { messages: [...model.messages], tools: model.visibleTools() };
    const once = await collect(new NovaShopDemoModel({ newToolCallId: () => 'call_x' }), request);
    const twice = await collect(new NovaShopDemoModel({ newToolCallId: () => 'call_x' }), request);
    expect(twice).toEqual(once);
    expect(once.find((part) => part.type === 'tool-call-end')).toMatchObject({ name: 'query_order' });
  });
});

describe('cancel a shipped order', () => {
  it('loads the skill, queries, finds the shipped NovaTrail X2, quotes the rules, does not cancel', async () => {
    const model = driver();
    const answer = await converse(model, '把我那双 NovaTrail 鞋的订单取消掉');
    expect(callSequence(model)).toEqual([
      'load_skill {"name":"order-change"}',
      'query_order {"limit":10}',
      'search_knowledge {"query":"已发货订单不能直接取消 物流拦截","topK":3}',
      'search_knowledge {"query":"NovaTrail X2 签收后退货","topK":4}',
    ]);
    // The two searches are parallel calls of one turn.
    const searchTurn = model.turns[2];
    expect(searchTurn?.text).toBe(
      '找到你的NovaTrail X2订单了，不过它已经是「已发货」状态，我查一下这种情况怎么处理。',
    );
    expect(
      searchTurn?.parts.filter((part) => part.type === 'tool-call-start').map((part) => part.index),
    ).toEqual([0, 1]);
    expect(answer.text).toContain(
      '订单 88229：NovaTrail X2 越野跑鞋（黑色、M码），实付 599.00 元，目前是「已发货」',
    );
    expect(answer.text).toContain('中通快递运单号 73100458229164');
    expect(answer.text).toContain('不能直接取消');
    expect(answer.text).toContain(
      '- 已发货订单不能直接取消，可以申请物流拦截，或在签收后申请退货。（来源：knowledge/policies/order-changes.md#L21）',
    );
    // The X2 return rule, said by two passages (L66 and L76), is quoted once with both citations.
    expect(answer.text).toMatch(
      /^- NovaTrail X2 .*签收后 7 个自然日内可申请退货。.*（来源：.*return-policy\.md#L66/m,
    );
    expect(answer.text.match(/签收后 7 个自然日内可申请退货/g)).toHaveLength(1);
    expectGroundedQuotes(model, answer.text);
    expect(model.cards).toEqual([]);
    expect((await shop.orders.getOrder(DEMO_USER, '88229'))?.status).toBe('已发货');
    expectWellFormed(model);
  });

  it('says so when the searches find nothing convincing', async () => {
    const model = driver({ knowledge: { search: async () => ({ hits: [], lowEvidence: true }) } });
    const answer = await converse(model, '把我那双 NovaTrail 鞋的订单取消掉');
    expect(answer.text).toContain('不能直接取消');
    expect(answer.text).toContain('我没有查到这种情况的具体条款，为免说错，建议联系 NovaShop 人工客服确认。');
  });

  it('does not cancel what is already cancelled', async () => {
    const model = driver();
    const answer = await converse(model, '帮我取消 88150');
    expect(callSequence(model)).toEqual([
      'load_skill {"name":"order-change"}',
      'query_order {"orderId":"88150"}',
    ]);
    expect(answer.text).toContain('已经是已取消状态（超时未付款，系统自动取消），不需要再取消了');
  });

  it('asks which order when several could be meant', async () => {
    const model = driver();
    const answer = await converse(model, '帮我把订单取消了');
    expect(callSequence(model)).toEqual(['load_skill {"name":"order-change"}', 'query_order {"limit":10}']);
    expect(answer.text).toContain('请告诉我是哪一笔');
    expect(answer.text).toContain('订单 88240');
    expect(answer.text).toContain('订单 88235');
  });
});

describe('order status', () => {
  it('我的订单到哪了: the recent orders, the ones under way with carrier and tracking number', async () => {
    const model = driver();
    const answer = await converse(model, '我的订单到哪了');
    expect(callSequence(model)).toEqual(['query_order {"limit":10}']);
    expect(answer.text).toContain('你有 4 笔订单还在进行中');
    expect(answer.text).toContain(
      '订单 88229：NovaTrail X2 越野跑鞋（黑色、M码），实付 599.00 元，现在的状态是「已发货」，已由中通快递发出，运单号 73100458229164。',
    );
    expect(answer.text).toContain('另外 2 笔订单已经完成或取消。');
    expectWellFormed(model);
  });

  it('88235 现在什么状态: that order by number', async () => {
    const model = driver();
    const answer = await converse(model, '88235 现在什么状态');
    expect(callSequence(model)).toEqual(['query_order {"orderId":"88235"}']);
    expect(answer.text).toBe(
      '订单 88235：Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带，实付 3378.00 元，' +
        '现在的状态是「已支付待发货」，已经付款，还没有发货，暂时没有物流信息。',
    );
  });

  it('an unknown number: the tool’s refusal, in its words', async () => {
    const model = driver();
    const answer = await converse(model, '12345 现在什么状态');
    expect(answer.text).toBe('没有找到订单 12345，请核对订单号，或先查询最近的订单。');
  });
});

describe('policy questions: search_knowledge, then the clauses with citations', () => {
  it.each([
    ['这双鞋七天内能退吗？', '关于退货', 'knowledge/products/novatrail-x2.md#L35'],
    ['下单后多久发货', '关于发货和配送', 'knowledge/policies/shipping-policy.md#L9'],
    ['X2 偏小吗，我该买哪个码', '关于尺码', 'knowledge/faq.json#L263'],
  ])('%s', async (question, lead, citation) => {
    const model = driver();
    const answer = await converse(model, question);
    expect(callSequence(model)).toEqual([`search_knowledge ${JSON.stringify({ query: question, topK: 5 })}`]);
    expect(answer.text.startsWith(lead)).toBe(true);
    expect(answer.text).toContain(citation);
    expectGroundedQuotes(model, answer.text);
    expectWellFormed(model);
  });

  it('quotes the clause that answers the size question, and leaves the jacket out', async () => {
    const answer = await converse(driver(), 'X2 偏小吗，我该买哪个码');
    expect(answer.text).toContain('NovaTrail X2 鞋楦偏窄，脚宽、脚背高的建议大一码');
    expect(answer.text).not.toContain('冲锋衣');
  });

  it('says it found no rule when evidence is low, and suggests human support', async () => {
    const model = driver({
      knowledge: {
        search: async () => ({
          lowEvidence: true,
          hits: [{ text: '无关条款。', title: 't', headingPath: ['t'], source: { citation: 'x.md#L1' } }],
        }),
      },
    });
    const answer = await converse(model, '这双鞋七天内能退吗？');
    expect(answer.text).toBe(
      '我没有在 NovaShop 现有的规则里找到能可靠回答这个问题的条款，为免说错就不猜了。' +
        '你可以换个说法再问（比如带上商品名或具体情况），或者联系 NovaShop 人工客服确认。',
    );
  });
});

describe('anything else', () => {
  it('declines politely, without tools', async () => {
    const model = driver();
    const answer = await converse(model, '今天天气怎么样');
    expect(model.turns).toHaveLength(1);
    expect(answer.text.startsWith('抱歉，这个问题我暂时帮不上忙')).toBe(true);
    expect(answer.parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expectWellFormed(model);
  });
});

describe('the summary turn (no tools)', () => {
  it('summarises the tool results so far, after the runtime’s instruction', async () => {
    const model = driver().say('我买的那块表还没发货的话，帮我取消吧，不想要了。');
    for (let turn = 0; turn < 2; turn += 1) {
      await model.turn();
      await model.runCalls();
    }
    model.say('请根据目前已有的工具结果，总结当前的执行情况并回答用户。');
    const summary = await model.turn({ tools: [] });
    expect(summary.calls).toEqual([]);
    expect(summary.text.split('\n')).toEqual([
      '这一轮的步骤已经用完，先总结一下目前查到的情况：',
      '- 已加载《订单变更手册》。',
      expect.stringMatching(
        /^- 订单查询：订单 88240（.+）待付款；订单 88235（.+）已支付待发货；订单 88229（.+）已发货 等 6 笔。$/,
      ),
    ]);
    expectWellFormed(model);
  });

  it('says there is nothing yet when no tool ran', async () => {
    const summary = await driver().say('我的订单到哪了').turn({ tools: [] });
    expect(summary.text).toContain('还没有拿到任何查询结果');
  });
});

describe('when tools are missing or fail', () => {
  it('goes on without the handbook when load_skill fails, and does not offer to cancel itself', async () => {
    const model = new ModelDriver({ model: new NovaShopDemoModel(), tools, skills: [] });
    const answer = await converse(model, '我买的那块表还没发货的话，帮我取消吧，不想要了。');
    expect(callSequence(model)).toEqual(['load_skill {"name":"order-change"}', 'query_order {"limit":10}']);
    expect(model.turns[1]?.reasoning).toContain('订单变更手册没加载成功');
    expect(answer.text).toContain('你可以在订单详情页直接取消');
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已支付待发货');
  });

  it('skips load_skill when the runtime offers none', async () => {
    const request: ChatRequest = {
      messages: [{ role: 'user', content: '帮我取消 88235' }],
      tools: [{ name: 'query_order', description: '', parameters: {} }],
    };
    const parts = await collect(new NovaShopDemoModel(), request);
    expect(parts.find((part) => part.type === 'tool-call-end')).toMatchObject({
      name: 'query_order',
      arguments: '{"orderId":"88235"}',
    });
  });
});

describe('streaming', () => {
  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    const model = new NovaShopDemoModel({ delayMs: 1 });
    const parts: ChatStreamPart[] = [];
    await expect(async () => {
      for await (const part of model.stream({
        messages: [{ role: 'user', content: '今天天气怎么样' }],
        tools: [{ name: 'query_order', description: '', parameters: {} }],
        signal: controller.signal,
      })) {
        parts.push(part);
        if (parts.length === 3) controller.abort(new Error('stopped'));
      }
    }).rejects.toThrow('stopped');
    expect(parts).toHaveLength(3);
  });

  it('names itself and makes unique tool call ids', async () => {
    const model = new NovaShopDemoModel();
    expect(model.name).toBe('novashop-demo');
    const request: ChatRequest = {
      messages: [{ role: 'user', content: '下单后多久发货' }],
      tools: [{ name: 'search_knowledge', description: '', parameters: {} }],
    };
    const ids = await Promise.all(
      [1, 2].map(async () => (await collect(model, request)).find((part) => part.type === 'tool-call-start')),
    );
    expect(ids[0]).toMatchObject({ id: expect.stringMatching(/^call_[0-9a-f]{24}$/) });
    expect(ids[0]).not.toEqual(ids[1]);
    expect(turnProblems(await collect(model, request))).toEqual([]);
  });
});

async function collect(model: NovaShopDemoModel, request: ChatRequest): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of model.stream(request)) parts.push(part);
  return parts;
}
