import type { RunEventDraft } from '../../../protocol/index.ts';
import type { ResponseContext } from '../response-object.ts';

/** A run the Responses tests map: every kind of block, a server tool, a host tool, a pause and an end. */
export const CONTEXT: ResponseContext = {
  id: 'run_1',
  createdAt: 1_796_219_100_000,
  model: 'scripted',
  instructions: null,
  tools: [
    {
      type: 'function',
      name: 'read_file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      strict: false,
    },
  ],
  previousResponseId: null,
  conversationId: 'conv_1',
  traceId: 'trace_1',
  metadata: {},
};

export const ended = (blockId: string, status?: 'done' | 'cancelled' | 'interrupted'): RunEventDraft => ({
  type: 'block.ended',
  blockId,
  endedAt: 1,
  durationMs: 1,
  ...(status === undefined ? {} : { status }),
});

export const text = (
  blockId: string,
  kind: 'answer' | 'reasoning' | 'error',
  words: string[],
): RunEventDraft[] => [
  { type: 'block.started', blockId, kind },
  ...words.map((word): RunEventDraft => ({ type: 'block.delta', blockId, text: word })),
  ended(blockId, 'done'),
];

/** Thinks, answers, runs a server tool, calls the host's read_file (one model call) and pauses for it. */
export const UNTIL_PAUSE: RunEventDraft[] = [
  { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1', traceId: 'trace_1' },
  ...text('blk_1', 'reasoning', ['Look at ', 'the file.']),
  ...text('blk_2', 'answer', ['Let me ', 'check.']),
  {
    type: 'block.started',
    blockId: 'blk_3',
    kind: 'tool',
    toolCallId: 'call_q',
    name: 'query_order',
    title: '订单查询',
  },
  { type: 'block.delta', blockId: 'blk_3', text: '{"limit":' },
  { type: 'block.delta', blockId: 'blk_3', text: '10}' },
  { type: 'block.updated', blockId: 'blk_3', kind: 'tool', toolCallId: 'call_q', args: { limit: 10 } },
  { type: 'block.updated', blockId: 'blk_3', kind: 'tool', toolCallId: 'call_q', status: 'running' },
  {
    type: 'block.updated',
    blockId: 'blk_3',
    kind: 'tool',
    toolCallId: 'call_q',
    status: 'done',
    result: { orders: [] },
  },
  ended('blk_3'),
  {
    type: 'block.started',
    blockId: 'blk_4',
    kind: 'tool',
    toolCallId: 'call_r',
    name: 'read_file',
    title: 'read_file',
  },
  { type: 'block.delta', blockId: 'blk_4', text: '{"path":' },
  { type: 'block.delta', blockId: 'blk_4', text: '"notes.txt"}' },
  {
    type: 'step.finished',
    step: 1,
    finishReason: 'tool_calls',
    usage: { inputTokens: 6, outputTokens: 3, reasoningTokens: 2, cachedInputTokens: 4 },
  },
  {
    type: 'block.updated',
    blockId: 'blk_4',
    kind: 'tool',
    toolCallId: 'call_r',
    args: { path: 'notes.txt' },
  },
  {
    type: 'run.paused',
    reason: 'tool_result',
    pending: [{ toolCallId: 'call_r', name: 'read_file', args: { path: 'notes.txt' } }],
  },
];

/** The host's output arrives, the run resumes and answers. */
export const AFTER_PAUSE: RunEventDraft[] = [
  {
    type: 'block.updated',
    blockId: 'blk_4',
    kind: 'tool',
    toolCallId: 'call_r',
    status: 'done',
    result: 'Buy milk.',
  },
  ended('blk_4'),
  { type: 'run.resumed', reason: 'tool_result', toolCallIds: ['call_r'] },
  { type: 'run.hint', code: 'max_iterations', text: '已达到最大迭代次数，正在生成当前执行结果的总结' },
  ...text('blk_5', 'answer', ['It says: ', 'Buy milk.']),
  { type: 'step.finished', step: 2, finishReason: 'stop', usage: { inputTokens: 4, outputTokens: 2 } },
  {
    type: 'run.finished',
    status: 'completed',
    usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 2, cachedInputTokens: 4 },
  },
];
