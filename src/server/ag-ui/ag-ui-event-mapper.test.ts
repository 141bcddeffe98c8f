import { HttpAgent } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import type { RunEventDraft } from '../../protocol/index.ts';
import { RunLog } from '../../runtime/index.ts';
import { agUiLogFace, agUiStreamFace, encodeAgUiEvents, runStartedEvent } from './ag-ui-log-face.ts';
import { parseAgUiSse, record } from './test-support/ag-ui-agent.ts';

/** The AG-UI face of hand-made logs, checked by the real client's pipeline (parse, validate, verify). */

const context = { threadId: 'thread-1', runId: 'agui-1' };

/** A run up to a paused confirmation: reasoning, a read, an answer, a write waiting for its card. */
const UNTIL_PAUSE: RunEventDraft[] = [
  { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
  { type: 'block.started', blockId: 'blk_1', kind: 'reasoning' },
  { type: 'block.delta', blockId: 'blk_1', text: '先查订单。' },
  { type: 'block.ended', blockId: 'blk_1', endedAt: 2, durationMs: 1, status: 'done' },
  { type: 'run.hint', code: 'slow_tool', text: '查询较慢' },
  {
    type: 'block.started',
    blockId: 'blk_2',
    kind: 'tool',
    toolCallId: 'call_q',
    name: 'query_order',
    title: '订单查询',
  },
  { type: 'block.delta', blockId: 'blk_2', text: '{"limit":' },
  { type: 'block.delta', blockId: 'blk_2', text: '1}' },
  {
    type: 'step.finished',
    step: 1,
    finishReason: 'tool_calls',
    usage: { inputTokens: 12, outputTokens: 4, cachedInputTokens: 8 },
  },
  {
    type: 'block.updated',
    blockId: 'blk_2',
    kind: 'tool',
    toolCallId: 'call_q',
    status: 'running',
    args: { limit: 1 },
  },
  {
    type: 'block.updated',
    blockId: 'blk_2',
    kind: 'tool',
    toolCallId: 'call_q',
    status: 'done',
    result: { orders: [] },
  },
  { type: 'block.ended', blockId: 'blk_2', endedAt: 3, durationMs: 1 },
  { type: 'block.started', blockId: 'blk_3', kind: 'answer' },
  { type: 'block.delta', blockId: 'blk_3', text: '我这就提交取消。' },
  { type: 'block.ended', blockId: 'blk_3', endedAt: 4, durationMs: 1, status: 'done' },
  {
    type: 'block.started',
    blockId: 'blk_4',
    kind: 'tool',
    toolCallId: 'call_c',
    name: 'cancel_order',
    title: '取消订单',
    args: { orderId: '88235' },
  },
  {
    type: 'step.finished',
    step: 2,
    finishReason: 'tool_calls',
    usage: { inputTokens: 14, outputTokens: 3, reasoningTokens: 1 },
  },
  {
    type: 'block.updated',
    blockId: 'blk_4',
    kind: 'tool',
    toolCallId: 'call_c',
    status: 'awaiting_confirmation',
  },
  {
    type: 'block.started',
    blockId: 'blk_5',
    kind: 'confirm',
    toolCallId: 'call_c',
    title: '取消订单',
    description: '订单 88235',
    details: [{ label: '订单号', value: '88235' }],
  },
  {
    type: 'run.paused',
    reason: 'confirmation',
    pending: [{ toolCallId: 'call_c', name: 'cancel_order', args: { orderId: '88235' } }],
  },
];

/** The rest after an approval. */
const AFTER_APPROVAL: RunEventDraft[] = [
  {
    type: 'block.updated',
    blockId: 'blk_5',
    kind: 'confirm',
    status: 'approved',
    decision: { decision: 'approve', decidedAt: 5 },
  },
  { type: 'block.ended', blockId: 'blk_5', endedAt: 5, durationMs: 1 },
  { type: 'run.resumed', reason: 'confirmation', toolCallIds: ['call_c'] },
  { type: 'block.updated', blockId: 'blk_4', kind: 'tool', toolCallId: 'call_c', status: 'running' },
  {
    type: 'block.updated',
    blockId: 'blk_4',
    kind: 'tool',
    toolCallId: 'call_c',
    status: 'done',
    result: { status: '已取消' },
  },
  { type: 'block.ended', blockId: 'blk_4', endedAt: 6, durationMs: 1 },
  { type: 'block.started', blockId: 'blk_6', kind: 'answer' },
  { type: 'block.delta', blockId: 'blk_6', text: '已取消。' },
  { type: 'block.ended', blockId: 'blk_6', endedAt: 7, durationMs: 1, status: 'done' },
  { type: 'step.finished', step: 3, finishReason: 'stop', usage: { inputTokens: 30, outputTokens: 7 } },
  {
    type: 'run.finished',
    status: 'completed',
    usage: { inputTokens: 56, outputTokens: 14, reasoningTokens: 1, cachedInputTokens: 8 },
  },
];

function logOf(
  drafts: readonly RunEventDraft[],
  options: ConstructorParameters<typeof RunLog>[1] = {},
): RunLog {
  const log = new RunLog('run_1', { now: () => 1_000, ...options });
  for (const draft of drafts) log.append(structuredClone(draft));
  return log;
}

/** What a stream of the face writes after `afterSeq`, through `throughSeq`. */
function written(log: RunLog, afterSeq: number, throughSeq = log.lastSeq): string {
  const face = agUiLogFace(log);
  const stream = agUiStreamFace(face, context);
  let text = encodeAgUiEvents([runStartedEvent(log, context)], undefined);
  if (afterSeq < face.preambleSeq && face.preamble !== null)
    text += typeof face.preamble === 'string' ? face.preamble : new TextDecoder().decode(face.preamble);
  for (let seq = Math.max(afterSeq, face.preambleSeq) + 1; seq <= throughSeq; seq += 1) {
    const frame = stream.frameAt(seq);
    if (frame !== null && frame !== undefined)
      text += typeof frame === 'string' ? frame : new TextDecoder().decode(frame);
  }
  return text;
}

/** The text as HttpAgent's response body: it parses, validates and verifies every event. */
async function throughClient(text: string, initialMessages: HttpAgent['messages'] = []) {
  const agent = new HttpAgent({
    url: 'http://agui.invalid/',
    threadId: 'thread-1',
    initialMessages,
    fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
  });
  const run = await record(agent, { runId: 'agui-1' });
  return { agent, run };
}

describe('the AG-UI face of a run log', () => {
  it('maps each event once, to the same frames whether the face existed from the start or began late', () => {
    const early = new RunLog('run_1', { now: () => 1_000 });
    agUiLogFace(early);
    for (const draft of [...UNTIL_PAUSE, ...AFTER_APPROVAL]) early.append(structuredClone(draft));
    const late = logOf([...UNTIL_PAUSE, ...AFTER_APPROVAL]);
    expect(written(late, 0)).toBe(written(early, 0));
    expect(agUiLogFace(late).mapper.events.endings).toEqual([UNTIL_PAUSE.length, late.lastSeq]);
  });

  it('writes stretches the client verifies: the interrupt, then the approved write’s result', async () => {
    const log = logOf([...UNTIL_PAUSE, ...AFTER_APPROVAL]);
    const pause = UNTIL_PAUSE.length;
    const first = await throughClient(written(log, 0, pause));
    expect(first.run.error).toBeUndefined();
    expect(first.run.types).toContain('CUSTOM');
    expect(first.agent.pendingInterrupts).toEqual([
      expect.objectContaining({ id: 'call_c', toolCallId: 'call_c', message: '取消订单 · 订单 88235' }),
    ]);
    expect(first.agent.messages.map((message) => message.role)).toEqual([
      'reasoning',
      'assistant',
      'tool',
      'assistant',
    ]);
    // The write's call is in the answer's message, after the read's result.
    // The interrupted AG-UI run reports what its own two model calls cost.
    expect(first.run.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'interrupt' },
      usage: [
        { inputTokens: 26, outputTokens: 7, totalTokens: 33, reasoningTokens: 1, cachedInputTokens: 8 },
      ],
    });
    const answer = first.agent.messages[3] as { content?: string; toolCalls?: { id: string }[] };
    expect(answer.content).toBe('我这就提交取消。');
    expect(answer.toolCalls?.map((call) => call.id)).toEqual(['call_c']);

    const second = await throughClient(written(log, pause), first.agent.messages);
    expect(second.run.error).toBeUndefined();
    expect(second.run.types).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    // The run that resumed it reports only its own call, as AG-UI counts (not the run's total).
    expect((second.run.events.at(-1) as unknown as { usage: unknown }).usage).toEqual([
      { inputTokens: 30, outputTokens: 7, totalTokens: 37 },
    ]);
    expect(second.agent.messages.map((message) => message.role)).toEqual([
      'reasoning',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('begins from a snapshot where the log lost the run’s start, and continues without reopening anything', async () => {
    const paused = logOf(UNTIL_PAUSE).message();
    // A copy built from the persisted message (a restart, another instance), then resumed.
    const log = new RunLog('run_1', { now: () => 1_000, initial: paused });
    const face = agUiLogFace(log);
    expect(face.preambleSeq).toBe(UNTIL_PAUSE.length);
    for (const draft of AFTER_APPROVAL) log.append(structuredClone(draft));

    const continuation = parseAgUiSse(written(log, UNTIL_PAUSE.length)).map((frame) => frame.event.type);
    expect(continuation).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STATE_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    // From the start, the snapshot is the whole message as it stood, then the rest.
    const whole = await throughClient(written(log, 0));
    expect(whole.run.error).toBeUndefined();
    expect(whole.agent.messages.at(-1)?.content).toBe('已取消。');
  });

  it('ends a failed run with RUN_ERROR carrying the error block’s words', async () => {
    const log = logOf([
      { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
      { type: 'block.started', blockId: 'blk_1', kind: 'answer' },
      { type: 'block.delta', blockId: 'blk_1', text: '半句' },
      { type: 'block.ended', blockId: 'blk_1', endedAt: 2, durationMs: 1, status: 'interrupted' },
      { type: 'block.started', blockId: 'blk_2', kind: 'error' },
      { type: 'block.delta', blockId: 'blk_2', text: '模型服务出错，本轮回答已中断：503' },
      { type: 'block.ended', blockId: 'blk_2', endedAt: 3, durationMs: 0, status: 'done' },
      { type: 'run.finished', status: 'failed', error: { code: 'model_unavailable', message: '503' } },
    ]);
    const { run } = await throughClient(written(log, 0));
    expect(run.error).toBeUndefined();
    expect(run.types.slice(-3)).toEqual(['TEXT_MESSAGE_END', 'STATE_SNAPSHOT', 'RUN_ERROR']);
    expect(run.events.at(-1)).toMatchObject({
      code: 'model_unavailable',
      message: '模型服务出错，本轮回答已中断：503',
    });
    expect(run.events.at(-1)).not.toHaveProperty('usage');
  });

  it('carries the usage of the calls before a failure on RUN_ERROR, and of a stopped run on RUN_FINISHED', async () => {
    const start: RunEventDraft[] = [
      { type: 'run.started', conversationId: 'conv_1', messageId: 'msg_1' },
      { type: 'block.started', blockId: 'blk_1', kind: 'answer' },
      { type: 'block.delta', blockId: 'blk_1', text: '先查一下。' },
      { type: 'block.ended', blockId: 'blk_1', endedAt: 2, durationMs: 1, status: 'done' },
      {
        type: 'step.finished',
        step: 1,
        finishReason: 'tool_calls',
        usage: { inputTokens: 9, outputTokens: 2 },
      },
    ];
    const failed = logOf([
      ...start,
      { type: 'block.started', blockId: 'blk_2', kind: 'error' },
      { type: 'block.delta', blockId: 'blk_2', text: '模型服务出错，本轮回答已中断：503' },
      { type: 'block.ended', blockId: 'blk_2', endedAt: 3, durationMs: 0, status: 'done' },
      { type: 'run.finished', status: 'failed', error: { code: 'model_unavailable', message: '503' } },
    ]);
    const usage = [{ inputTokens: 9, outputTokens: 2, totalTokens: 11 }];
    const failedRun = (await throughClient(written(failed, 0))).run;
    expect(failedRun.error).toBeUndefined();
    expect(failedRun.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'model_unavailable', usage });
    const stopped = logOf([...start, { type: 'run.finished', status: 'cancelled', reason: 'user_stop' }]);
    const stoppedRun = (await throughClient(written(stopped, 0))).run;
    expect(stoppedRun.error).toBeUndefined();
    expect(stoppedRun.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'cancelled' },
      usage,
    });
  });
});
