import type { RunEventDraft } from '../../protocol/index.ts';

/**
 * A realistic completed run as event drafts: reasoning, a tool call that goes pending → running →
 * done, and an answer streamed as many small Chinese deltas (some characters are 4-byte emoji, so
 * cuts land inside multi-byte characters).
 */
export function completedOrderStatusRun(answerDeltas = 40): RunEventDraft[] {
  const drafts: RunEventDraft[] = [
    { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
    { type: 'block.started', blockId: 'b1', kind: 'reasoning' },
    { type: 'block.delta', blockId: 'b1', text: '用户想知道订单状态，' },
    { type: 'block.delta', blockId: 'b1', text: '先查询最近的订单。' },
    { type: 'block.ended', blockId: 'b1', endedAt: 1, durationMs: 120 },
    {
      type: 'block.started',
      blockId: 'b2',
      kind: 'tool',
      toolCallId: 'call_1',
      name: 'query_order',
      title: '订单查询',
    },
    { type: 'block.delta', blockId: 'b2', text: '{"orderId":' },
    { type: 'block.delta', blockId: 'b2', text: '"88235"}' },
    { type: 'block.updated', blockId: 'b2', kind: 'tool', toolCallId: 'call_1', args: { orderId: '88235' } },
    { type: 'block.updated', blockId: 'b2', kind: 'tool', toolCallId: 'call_1', status: 'running' },
    {
      type: 'block.updated',
      blockId: 'b2',
      kind: 'tool',
      toolCallId: 'call_1',
      status: 'done',
      result: { orderId: '88235', status: '已支付待发货', item: 'Apple Watch Series 12' },
    },
    { type: 'block.ended', blockId: 'b2', endedAt: 2, durationMs: 8 },
    { type: 'block.started', blockId: 'b3', kind: 'answer' },
  ];
  const pieces = [
    '你的订单',
    ' 88235 ',
    '（Apple Watch Series 12）',
    '目前是已支付待发货，',
    '预计 48 小时内发出 📦。\n',
  ];
  for (let index = 0; index < answerDeltas; index += 1) {
    drafts.push({ type: 'block.delta', blockId: 'b3', text: pieces[index % pieces.length] ?? '' });
  }
  drafts.push(
    { type: 'block.ended', blockId: 'b3', endedAt: 3, durationMs: 300 },
    { type: 'run.finished', status: 'completed' },
  );
  return drafts;
}
