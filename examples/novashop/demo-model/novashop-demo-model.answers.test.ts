import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KnowledgeHit, KnowledgeSearch } from '../../../src/agent/search-knowledge-tool.ts';
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

/**
 * Issue #12 §7: the demo's answers read as answers. The three cases a new user reported, then
 * English throughout (status, cancel with its card, a policy question) and weak evidence in both
 * languages. Driven through the demo model with the real tools, on the real knowledge or a fake.
 */

let knowledge: Awaited<ReturnType<typeof openNovaShopKnowledge>>;
let shop: SeededShop;
const skills = loadNovaShopSkills();

beforeAll(async () => {
  knowledge = await openNovaShopKnowledge();
});
afterAll(() => knowledge.close());
beforeEach(() => {
  shop = openSeededShop();
});
afterEach(() => shop.close());

function driver(search: KnowledgeSearch = knowledge.knowledge): ModelDriver {
  const tools = novaShopRuntimeTools(shop.orders, search);
  return new ModelDriver({ model: new NovaShopDemoModel(), tools, skills });
}

async function converse(model: ModelDriver, question: string, decision: 'approve' | 'reject' = 'approve') {
  model.say(question);
  for (let turn = 0; turn < 8; turn += 1) {
    const result: DrivenTurn = await model.turn();
    if (result.calls.length === 0) return result;
    await model.runCalls(() => decision);
  }
  throw new Error('no answer after 8 turns');
}

function calls(model: ModelDriver): string[] {
  return model.turns.flatMap((turn) => turn.calls.map((call) => `${call.name} ${call.arguments}`));
}

/** A fake search that returns these hits, as the retriever would (clause, passage, heading, line). */
function searchReturning(
  hits: readonly (Partial<KnowledgeHit> & { text: string; citation: string })[],
  lowEvidence = false,
): KnowledgeSearch {
  return {
    search: async () => ({
      lowEvidence,
      hits: hits.map((hit) => ({
        text: hit.text,
        ...(hit.context === undefined ? {} : { context: hit.context }),
        title: hit.title ?? 'NovaShop',
        headingPath: hit.headingPath ?? [],
        source: { citation: hit.citation },
      })),
    }),
  };
}

function firstSentence(text: string): string {
  return text.split(/(?<=[。.?？])\s*/)[0] ?? '';
}

describe('the three reported cases', () => {
  it('"Where is my order?" is a status question, answered in English from the recent orders, like 我的订单到哪了', async () => {
    const model = driver();
    const answer = await converse(model, 'Where is my order?');
    expect(calls(model)).toEqual(['query_order {"limit":10}']);
    expect(answer.text).not.toContain('抱歉');
    expect(answer.text.split('\n')[0]).toBe('You have 4 orders in progress:');
    expect(answer.text).toContain(
      '- Order 88229: NovaTrail X2 越野跑鞋（黑色、M码）, paid ¥599.00; status: shipped (已发货). It was sent with 中通快递, tracking number 73100458229164.',
    );
    expect(answer.text).toContain('2 other orders are completed or cancelled.');
  });

  describe('「退货政策是怎样的？七天无理由吗？」 states the 7-day rule in its first sentence', () => {
    const question = '退货政策是怎样的？七天无理由吗？';

    it('on the real knowledge', async () => {
      const model = driver();
      const answer = await converse(model, question);
      expect(firstSentence(answer.text)).toContain('商品签收后 7 个自然日内支持无理由退货');
      expectGroundedQuotes(model, answer.text);
    });

    it('when the retriever ranks the exceptions first and the rule is only in a passage', async () => {
      const model = driver(
        searchReturning([
          {
            text: '特价清仓商品，商品页会标注「清仓特价，不支持无理由退货」。',
            citation: 'return-policy.md#L27',
          },
          { text: '拆封后的贴身衣物和袜子。', citation: 'return-policy.md#L29' },
          {
            text: '订单变为已完成后，不再受理无理由退货申请。',
            context:
              '除本政策列明的例外商品外，商品签收后 7 个自然日内支持无理由退货。\n订单变为已完成后，不再受理无理由退货申请。',
            citation: 'return-policy.md#L13',
          },
        ]),
      );
      const answer = await converse(model, question);
      expect(answer.text.split('\n')[0]).toBe(
        '关于退货，NovaShop 的规则是这样写的：除本政策列明的例外商品外，商品签收后 7 个自然日内支持无理由退货。' +
          '订单变为已完成后，不再受理无理由退货申请。（来源：return-policy.md#L13）',
      );
      expectGroundedQuotes(model, answer.text);
    });
  });

  describe('the shipping answer says 满 99 元包邮 once', () => {
    it('when the policy and the FAQ both say it: one line, both citations', async () => {
      const model = driver(
        searchReturning([
          { text: '普通地区订单实付满 99 元免运费。', citation: 'knowledge/policies/shipping-policy.md#L22' },
          {
            text: '普通地区实付满 99 元就包邮，不满 99 元收 8 元运费。',
            citation: 'knowledge/faq-delivery.md#L9',
          },
          {
            text: '包邮门槛按使用优惠券和积分抵扣后的实付金额计算。',
            citation: 'knowledge/policies/shipping-policy.md#L26',
          },
        ]),
      );
      const answer = await converse(model, '运费怎么算？满多少包邮？');
      expect(answer.text).not.toContain('满 99 元免运费');
      expect(answer.text.match(/满 99 元就包邮/g)).toHaveLength(1);
      expect(answer.text.split('\n')[0]).toBe(
        '关于发货和配送，NovaShop 的规则是这样写的：普通地区实付满 99 元就包邮，不满 99 元收 8 元运费。' +
          '（来源：knowledge/faq-delivery.md#L9；knowledge/policies/shipping-policy.md#L22）',
      );
      expectGroundedQuotes(model, answer.text);
    });

    it('on the real knowledge', async () => {
      const model = driver();
      const answer = await converse(model, '运费怎么算？满多少包邮？');
      const saysFree = answer.text.match(/满 99 元(免运费|就包邮)/g) ?? [];
      expect(saysFree).toHaveLength(1);
      expectGroundedQuotes(model, answer.text);
    });
  });
});

describe('English', () => {
  it('order status by number', async () => {
    const model = driver();
    const answer = await converse(model, 'What is the status of order 88235?');
    expect(calls(model)).toEqual(['query_order {"orderId":"88235"}']);
    expect(answer.text).toBe(
      'Order 88235: Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带, paid ¥3378.00; ' +
        'status: paid, not shipped yet (已支付待发货). It is paid and has not shipped yet, so there is no tracking information.',
    );
  });

  it('an unknown order number: the tool’s words, framed in English', async () => {
    const answer = await converse(driver(), 'where is my order 12345');
    expect(answer.text).toBe('The order lookup says: 没有找到订单 12345，请核对订单号，或先查询最近的订单。');
  });

  it('cancel: English steps, an English card, an English outcome', async () => {
    const model = driver().say('cancel my order NS88235');
    const first = await model.turn();
    expect(first.text).toBe('Let me check how cancellations are handled first.');
    expect(first.reasoning).toContain('The shopper wants to cancel order 88235.');
    await model.runCalls();
    await model.turn();
    await model.runCalls();
    const third = await model.turn();
    expect(third.text).toBe(
      'I found your Apple Watch order: order 88235, Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带, ' +
        "paid ¥3378.00, status paid, not shipped yet (已支付待发货). It can be cancelled. I'll submit the cancellation; please confirm it on the card.",
    );
    expect(third.calls.map((call) => JSON.parse(call.arguments))).toEqual([
      { orderId: '88235', language: 'en' },
    ]);
    const [run] = await model.runCalls(() => 'approve');
    expect(run?.card).toEqual({
      title: 'Cancel order',
      description: 'Order 88235 · Apple Watch Series 12',
      details: [
        { label: 'Order number', value: '88235' },
        { label: 'Items', value: 'Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带' },
        { label: 'Amount paid', value: '¥3378.00' },
        { label: 'Status', value: 'Paid, not shipped yet (已支付待发货)' },
      ],
    });
    const answer = await model.turn();
    expect(answer.text).toBe(
      'Order 88235 is cancelled: Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带. ' +
        'The refund of ¥3378.00 has been started (原路退回（支付宝）). A cancellation cannot be undone; to get it after all, place a new order.',
    );
    expect((await shop.orders.getOrder(DEMO_USER, '88235'))?.status).toBe('已取消');
  });

  it('cancel, rejected on the card: the order is kept, said in English', async () => {
    const answer = await converse(driver(), 'Please cancel the watch if it has not shipped', 'reject');
    expect(answer.text).toBe(
      'OK, order 88235 is not cancelled and will go ahead as usual. If you still want to cancel it, tell me before it ships.',
    );
  });

  it('a shipped order cannot be cancelled: why, and the rules quoted once each', async () => {
    const model = driver();
    const answer = await converse(model, 'cancel my order 88229');
    expect(answer.text).toContain(
      'currently shipped (已发货), 中通快递 tracking number 73100458229164. It cannot be cancelled directly',
    );
    expect(answer.text).toContain('Under the rules, you can:');
    expectGroundedQuotes(model, answer.text);
  });

  it('a policy question: searched with the Chinese key words, answered in English with the clauses quoted', async () => {
    const model = driver();
    const answer = await converse(model, 'Can I return shoes after 7 days?');
    expect(calls(model)).toEqual([
      'search_knowledge {"query":"退货 鞋 7 天 Can I return shoes after 7 days?","topK":5}',
    ]);
    expect(answer.text.startsWith("On returns, NovaShop's rules say: ")).toBe(true);
    expect(firstSentence(answer.text.replace("On returns, NovaShop's rules say: ", ''))).toContain(
      '7 个自然日内',
    );
    expect(answer.text).toContain(' (source: knowledge/');
    expect(answer.text).not.toContain('来源');
    expect(answer.text.split('\n').at(-1)).toBe(
      "Whether an item can go back depends on the product and when it was delivered; give me the order number and I'll check the order.",
    );
    expectGroundedQuotes(model, answer.text);
  });

  it('how long shipping takes: the clause with the days first', async () => {
    const model = driver();
    const answer = await converse(model, 'How long does shipping take?');
    expect(firstSentence(answer.text.replace("On shipping, NovaShop's rules say: ", ''))).toMatch(
      /2 至 4 天/,
    );
    expectGroundedQuotes(model, answer.text);
  });

  it('anything else: the refusal in English', async () => {
    const answer = await converse(driver(), "What's the weather like?");
    expect(answer.text.startsWith("Sorry, I can't help with that one.")).toBe(true);
  });
});

describe('weak evidence (lowEvidence): no reliable basis, say so, do not quote', () => {
  const weak = searchReturning(
    [{ text: '礼品卡和虚拟充值类商品。', citation: 'return-policy.md#L30' }],
    true,
  );

  it('in Chinese', async () => {
    const answer = await converse(driver(weak), '这双鞋洗过还能退吗？');
    expect(answer.text).toBe(
      '我没有在 NovaShop 现有的规则里找到能可靠回答这个问题的条款，为免说错就不猜了。' +
        '你可以换个说法再问（比如带上商品名或具体情况），或者联系 NovaShop 人工客服确认。',
    );
  });

  it('in English', async () => {
    const answer = await converse(driver(weak), 'Can I return shoes I have washed?');
    expect(answer.text).toBe(
      "I couldn't find a reliable basis for this in NovaShop's rules, so I won't guess. " +
        "You could rephrase the question (for example with the product name or your situation), or check with NovaShop's customer service team.",
    );
    expect(answer.text).not.toContain('礼品卡');
  });
});
