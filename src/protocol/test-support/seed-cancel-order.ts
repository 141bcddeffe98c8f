import type { RunEvent } from '../run-event.ts';
import { createEventFactory } from './event-factory.ts';

/** The ids of the seed 002 run, for assertions. */
export const SEED_CANCEL_ORDER = {
  runId: 'run_seed002',
  conversationId: 'conv_seed002',
  messageId: 'msg_seed002',
  orderId: '88235',
  toolCallIds: {
    loadSkill: 'call_load_skill',
    queryOrder: 'call_query_order',
    cancelOrder: 'call_cancel_order',
  },
} as const;

/**
 * Seed 002, as events: the user asks to cancel an Apple Watch that has not shipped yet. The agent
 * thinks, says it will look up the procedure, loads the 订单变更 handbook, queries the orders, finds
 * order 88235 (已支付待发货), says so, calls `cancel_order`, and the run pauses on a confirmation card.
 * Persisted, that is 9 blocks: reasoning, answer, tool (done), reasoning, tool (done), reasoning,
 * answer, tool (awaiting_confirmation), confirm (pending). The stream ends with `done` after
 * `run.paused`. About 3.7 s from the first to the last event, as in the seed.
 */
export function seedCancelOrderEvents(): RunEvent[] {
  const ids = SEED_CANCEL_ORDER;
  const f = createEventFactory(ids.runId, { startAt: 1_750_000_000_000, stepMs: 10 });
  const { loadSkill, queryOrder, cancelOrder } = ids.toolCallIds;
  const events: RunEvent[] = [];
  const push = (...more: RunEvent[]) => {
    events.push(...more);
  };

  push(f.runStarted({ conversationId: ids.conversationId, messageId: ids.messageId }));

  // 1 · reasoning
  f.tick(900);
  push(f.textStarted('b1', 'reasoning'));
  for (const text of ['用户想取消一块', '还没发货的Apple Watch。', '先看订单变更的办理流程。']) {
    f.tick(40);
    push(f.delta('b1', text));
  }
  push(f.ended('b1'));

  // 2 · answer, 134 ms from start to end as in the seed
  push(f.textStarted('b2', 'answer'));
  for (const [pause, text] of [
    [31, '我先看下'],
    [31, '取消订单的'],
    [32, '具体办理流程。'],
  ] as const) {
    f.tick(pause);
    push(f.delta('b2', text));
  }
  push(f.ended('b2'));

  // 3 · tool load_skill: pending → running → done
  push(
    f.toolStarted('b3', {
      toolCallId: loadSkill,
      name: 'load_skill',
      title: '加载技能手册',
      args: { name: '订单变更' },
    }),
  );
  push(f.toolUpdated('b3', loadSkill, { status: 'running' }));
  f.tick(25);
  push(
    f.toolUpdated('b3', loadSkill, {
      status: 'done',
      result: {
        name: '订单变更',
        content:
          '## 取消订单\n1. 先用 query_order 查订单状态。\n2. 待付款、已支付待发货：可以直接取消，调用 cancel_order，须经用户确认。\n3. 已发货、已签收：不能取消，引导用户申请退货退款。',
      },
    }),
  );
  push(f.ended('b3'));

  // 4 · reasoning
  f.tick(700);
  push(f.textStarted('b4', 'reasoning'));
  for (const text of ['手册要求先查订单状态，', '再决定能不能直接取消。', '查最近10笔订单。']) {
    f.tick(60);
    push(f.delta('b4', text));
  }
  push(f.ended('b4'));

  // 5 · tool query_order, arguments streamed as text first: pending → running → done
  push(f.toolStarted('b5', { toolCallId: queryOrder, name: 'query_order', title: '订单查询' }));
  push(f.delta('b5', '{"limit":'));
  push(f.delta('b5', '10}'));
  push(f.toolUpdated('b5', queryOrder, { status: 'running', args: { limit: 10 } }));
  push(
    f.toolUpdated('b5', queryOrder, {
      status: 'done',
      result: {
        orders: [
          {
            orderId: '88235',
            product: 'Apple Watch Series 12',
            spec: '深空灰色、42毫米、铝金属、GPS',
            accessories: ['回环式运动表带'],
            paidAmount: '3378.00',
            status: '已支付待发货',
          },
        ],
      },
    }),
  );
  push(f.ended('b5'));

  // 6 · reasoning
  f.tick(821);
  push(f.textStarted('b6', 'reasoning'));
  for (const text of ['订单88235已支付待发货，', '可以直接取消。', '取消是写操作，要先请用户确认。']) {
    f.tick(70);
    push(f.delta('b6', text));
  }
  push(f.ended('b6'));

  // 7 · answer in small Chinese deltas
  push(f.textStarted('b7', 'answer'));
  for (const text of ['找到你的', 'Apple Watch', '订单了', '……', '我这就', '提交取消。']) {
    f.tick(35);
    push(f.delta('b7', text));
  }
  push(f.ended('b7'));

  // 8 · tool cancel_order: pending → awaiting_confirmation; it stays open until the owner decides
  push(f.toolStarted('b8', { toolCallId: cancelOrder, name: 'cancel_order', title: '取消订单' }));
  push(f.delta('b8', '{"orderId":'));
  push(f.delta('b8', '"88235"}'));
  push(f.toolUpdated('b8', cancelOrder, { status: 'awaiting_confirmation', args: { orderId: ids.orderId } }));

  // 9 · confirm card; pending until approved or rejected, so it stays open too
  push(
    f.confirmStarted('b9', {
      toolCallId: cancelOrder,
      title: '取消订单',
      description: '订单 88235 · Apple Watch Series 12',
      details: [
        { label: '订单号', value: '88235' },
        { label: '商品', value: 'Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带' },
        { label: '实付金额', value: '¥3378.00' },
        { label: '订单状态', value: '已支付待发货' },
      ],
    }),
  );

  push(
    f.paused('confirmation', [
      { toolCallId: cancelOrder, name: 'cancel_order', args: { orderId: ids.orderId } },
    ]),
  );
  push(f.done());
  return events;
}
