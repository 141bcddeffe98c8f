import type { RunEventDraft } from '../../../protocol/index.ts';
import type { UiMessageChunk } from '../ui-message-chunk-mapper.ts';

/** A run with every kind of block: reasoning, text, a tool with streamed arguments, a confirmed write. */
export const RUN: RunEventDraft[] = [
  { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
  { type: 'block.started', blockId: 'b1', kind: 'reasoning' },
  { type: 'block.delta', blockId: 'b1', text: '先查' },
  { type: 'block.delta', blockId: 'b1', text: '订单。' },
  { type: 'block.ended', blockId: 'b1', endedAt: 5, durationMs: 1 },
  {
    type: 'block.started',
    blockId: 'b2',
    kind: 'tool',
    toolCallId: 'call_q',
    name: 'query_order',
    title: '查订单',
  },
  { type: 'block.delta', blockId: 'b2', text: '{"limit"' },
  { type: 'block.delta', blockId: 'b2', text: ':10}' },
  {
    type: 'block.updated',
    blockId: 'b2',
    kind: 'tool',
    toolCallId: 'call_q',
    status: 'running',
    args: { limit: 10 },
  },
  {
    type: 'block.updated',
    blockId: 'b2',
    kind: 'tool',
    toolCallId: 'call_q',
    status: 'done',
    result: { orders: 1 },
  },
  { type: 'block.ended', blockId: 'b2', endedAt: 9, durationMs: 2 },
  { type: 'block.started', blockId: 'b3', kind: 'answer' },
  { type: 'block.delta', blockId: 'b3', text: '找到了' },
  { type: 'block.delta', blockId: 'b3', text: '，要取消吗？' },
  { type: 'block.ended', blockId: 'b3', endedAt: 12, durationMs: 1 },
  {
    type: 'block.started',
    blockId: 'b4',
    kind: 'tool',
    toolCallId: 'call_c',
    name: 'cancel_order',
    title: '取消订单',
    args: { orderId: '88235' },
  },
  {
    type: 'block.updated',
    blockId: 'b4',
    kind: 'tool',
    toolCallId: 'call_c',
    status: 'awaiting_confirmation',
  },
  {
    type: 'block.started',
    blockId: 'b5',
    kind: 'confirm',
    toolCallId: 'call_c',
    title: '取消订单',
    description: '订单 88235',
    details: [{ label: '订单号', value: '88235' }],
  },
  { type: 'run.paused', reason: 'confirmation', pending: [{ toolCallId: 'call_c', name: 'cancel_order' }] },
  {
    type: 'block.updated',
    blockId: 'b5',
    kind: 'confirm',
    status: 'approved',
    decision: { decision: 'approve', decidedAt: 20 },
  },
  { type: 'block.ended', blockId: 'b5', endedAt: 20, durationMs: 0 },
  { type: 'run.resumed', reason: 'confirmation', toolCallIds: ['call_c'] },
  {
    type: 'block.updated',
    blockId: 'b4',
    kind: 'tool',
    toolCallId: 'call_c',
    status: 'done',
    result: { ok: true },
  },
  { type: 'block.ended', blockId: 'b4', endedAt: 22, durationMs: 1 },
  { type: 'run.finished', status: 'completed' },
] as RunEventDraft[];

/**
 * The parts a UI message stream builds, folded as the AI SDK's `processUIMessageStream` does for
 * these chunk types (step boundaries aside): for comparing two streams of the same message.
 */
export function partsOf(chunks: UiMessageChunk[]): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  const byId = new Map<string, Record<string, unknown>>();
  const approvals = new Map<string, Record<string, unknown>>();
  for (const chunk of chunks) {
    const id = String(chunk.id ?? chunk.toolCallId ?? '');
    const part = byId.get(id);
    switch (chunk.type) {
      case 'text-start':
      case 'reasoning-start':
      case 'tool-input-start': {
        const created = {
          type: chunk.type.split('-')[0],
          text: '',
          state: 'streaming',
          toolName: chunk.toolName,
        };
        byId.set(id, created);
        parts.push(created);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta':
        if (part) part.text = `${part.text}${chunk.delta}`;
        break;
      case 'text-end':
      case 'reasoning-end':
        if (part) part.state = 'done';
        break;
      case 'tool-input-available':
        Object.assign(part ?? {}, { state: 'input-available', input: chunk.input });
        break;
      case 'tool-approval-request':
        Object.assign(part ?? {}, { state: 'approval-requested', approval: { id: chunk.approvalId } });
        if (part) approvals.set(String(chunk.approvalId), part);
        break;
      case 'tool-approval-response': {
        const asked = approvals.get(String(chunk.approvalId));
        Object.assign(asked ?? {}, {
          state: 'approval-responded',
          approval: { id: chunk.approvalId, approved: chunk.approved },
        });
        break;
      }
      case 'tool-output-available':
        Object.assign(part ?? {}, { state: 'output-available', output: chunk.output });
        break;
    }
  }
  return parts;
}
