import { describe, expect, it } from 'vitest';
import type { Block } from './block.ts';
import { createMessageState, type MessageState, toMessage } from './message.ts';
import { reduce, reduceAll } from './reduce.ts';
import { RUN_EVENT_TYPES, type RunEvent, type RunEventType } from './run-event.ts';
import {
  createEventFactory,
  deepFreeze,
  type EventFactory,
  SEED_CANCEL_ORDER,
  seedCancelOrderEvents,
} from './test-support/index.ts';

const fresh = () => createMessageState();

/** A started run with an open answer (b1), an open tool call (b2, call_1) and an open card (b3). */
function runWithOpenBlocks(runId = 'r1'): { f: EventFactory; state: MessageState } {
  const f = createEventFactory(runId, { startAt: 1_000 });
  const state = reduceAll(fresh(), [
    f.runStarted(),
    f.textStarted('b1', 'answer'),
    f.delta('b1', '我先'),
    f.toolStarted('b2', { toolCallId: 'call_1', name: 'cancel_order', title: '取消订单' }),
    f.confirmStarted('b3', { toolCallId: 'call_1', title: '取消订单', description: '订单 88235' }),
  ]);
  expect(state.lastSeq).toBe(5);
  expect(state.anomalies).toEqual([]);
  return { f, state };
}

describe('reduce: the seed 002 cancel-order run', () => {
  const events = seedCancelOrderEvents();
  const state = reduceAll(fresh(), events);

  it('gives exactly 9 blocks, in order, with the right kinds and statuses', () => {
    expect(state.blocks.map((block) => [block.blockId, block.kind, block.status])).toEqual([
      ['b1', 'reasoning', 'done'],
      ['b2', 'answer', 'done'],
      ['b3', 'tool', 'done'],
      ['b4', 'reasoning', 'done'],
      ['b5', 'tool', 'done'],
      ['b6', 'reasoning', 'done'],
      ['b7', 'answer', 'done'],
      ['b8', 'tool', 'awaiting_confirmation'],
      ['b9', 'confirm', 'pending'],
    ]);
    expect(state.anomalies).toEqual([]);
  });

  it('joins the deltas of each text block', () => {
    const texts = state.blocks.map((block) => ('text' in block ? block.text : null));
    expect(texts).toEqual([
      '用户想取消一块还没发货的Apple Watch。先看订单变更的办理流程。',
      '我先看下取消订单的具体办理流程。',
      null,
      '手册要求先查订单状态，再决定能不能直接取消。查最近10笔订单。',
      null,
      '订单88235已支付待发货，可以直接取消。取消是写操作，要先请用户确认。',
      '找到你的Apple Watch订单了……我这就提交取消。',
      null,
      null,
    ]);
    // 134 ms for the first answer, as in the seed.
    expect(state.blocks[1]).toMatchObject({
      startedAt: 1_750_000_001_080,
      endedAt: 1_750_000_001_214,
      durationMs: 134,
    });
  });

  it('keeps one block per tool call, with its args, argument text and result', () => {
    const tools = state.blocks.filter((block) => block.kind === 'tool');
    expect(tools.map((tool) => [tool.toolCallId, tool.name, tool.title, tool.argsText, tool.args])).toEqual([
      ['call_load_skill', 'load_skill', '加载技能手册', '', { name: '订单变更' }],
      ['call_query_order', 'query_order', '订单查询', '{"limit":10}', { limit: 10 }],
      ['call_cancel_order', 'cancel_order', '取消订单', '{"orderId":"88235"}', { orderId: '88235' }],
    ]);
    expect(tools[1]?.result).toEqual({
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
    });
    expect(tools[2]?.result).toBeUndefined();
    // The write call has not run: it stays open, like its card, until the owner decides.
    expect([state.blocks[7]?.endedAt, state.blocks[8]?.endedAt]).toEqual([null, null]);
  });

  it('shows the confirmation card for order 88235', () => {
    expect(state.blocks[8]).toEqual({
      blockId: 'b9',
      kind: 'confirm',
      toolCallId: 'call_cancel_order',
      title: '取消订单',
      description: '订单 88235 · Apple Watch Series 12',
      details: [
        { label: '订单号', value: '88235' },
        { label: '商品', value: 'Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带' },
        { label: '实付金额', value: '¥3378.00' },
        { label: '订单状态', value: '已支付待发货' },
      ],
      status: 'pending',
      startedAt: 1_750_000_003_690,
      endedAt: null,
      durationMs: null,
    });
  });

  it('is paused on the pending cancel_order call, with the run ids of run.started', () => {
    expect(toMessage(state)).toMatchObject({
      runId: SEED_CANCEL_ORDER.runId,
      conversationId: SEED_CANCEL_ORDER.conversationId,
      messageId: SEED_CANCEL_ORDER.messageId,
      status: 'paused',
      pause: {
        reason: 'confirmation',
        pending: [{ toolCallId: 'call_cancel_order', name: 'cancel_order', args: { orderId: '88235' } }],
      },
      finishReason: null,
      error: null,
      startedAt: 1_750_000_000_000,
      endedAt: null,
    });
    // Every logged event counted; `done` has no seq.
    expect(state.lastSeq).toBe(events.length - 1);
    expect(state.hint).toBeNull();
  });
});

describe('reduce: tool blocks', () => {
  it('gives one block for three updates of one call, addressed by toolCallId', () => {
    const f = createEventFactory('r1');
    const state = reduceAll(fresh(), [
      f.runStarted(),
      f.toolStarted('t1', { toolCallId: 'call_a', name: 'load_skill', title: '加载技能手册' }),
      f.toolUpdated('t1', 'call_a', { status: 'pending' }),
      f.toolUpdated('t1', 'call_a', { status: 'running', args: { name: '订单变更' } }),
      f.toolUpdated('t1', 'call_a', { status: 'done', result: '手册正文' }),
    ]);
    expect(state.blocks).toHaveLength(1);
    expect(state.blocks[0]).toMatchObject({
      blockId: 't1',
      toolCallId: 'call_a',
      status: 'done',
      args: { name: '订单变更' },
      result: '手册正文',
    });
    expect(state.anomalies).toEqual([]);
  });

  it('keeps fields an update does not mention, and records a failure', () => {
    const f = createEventFactory('r1');
    const state = reduceAll(fresh(), [
      f.runStarted(),
      f.toolStarted('t1', { toolCallId: 'call_a', name: 'query_order', args: { limit: 10 } }),
      f.delta('t1', '{"limit":10}'),
      f.toolUpdated('t1', 'call_a', {
        status: 'failed',
        error: { code: 'tool_timeout', message: '查询超时' },
      }),
    ]);
    expect(state.blocks[0]).toMatchObject({
      status: 'failed',
      args: { limit: 10 },
      argsText: '{"limit":10}',
      error: { code: 'tool_timeout', message: '查询超时' },
    });
    expect(state.blocks[0]).not.toHaveProperty('result');
  });
});

describe('reduce: anomalies are recorded, not applied', () => {
  it('records an event for an unknown block as unknown_block and otherwise changes only lastSeq', () => {
    const { f, state } = runWithOpenBlocks();
    const cases: RunEvent[] = [
      f.delta('nope', '字'),
      f.toolUpdated('nope', 'call_nope', { status: 'running' }),
      f.confirmUpdated('nope', 'approved'),
      f.ended('nope'),
    ];
    for (const event of cases) {
      if (event.type === 'done') throw new Error('unreachable');
      const next = reduce(state, { ...event, seq: 6 });
      expect(next.anomalies).toEqual([
        { seq: 6, type: event.type, code: 'unknown_block', message: expect.stringContaining('nope') },
      ]);
      expect({ ...next, anomalies: [], lastSeq: 5 }).toEqual(state);
      expect(next.lastSeq).toBe(6);
      expect(next.blocks).toBe(state.blocks);
    }
  });

  it('treats a tool update whose blockId does not match its toolCallId as unknown_block', () => {
    const { f, state } = runWithOpenBlocks();
    const next = reduce(state, f.toolUpdated('b1', 'call_1', { status: 'running' }));
    expect(next.anomalies.map((anomaly) => anomaly.code)).toEqual(['unknown_block']);
    expect(next.blocks).toBe(state.blocks);
  });

  it('records a delta, update or second end on a closed block as block_closed', () => {
    const { f, state: open } = runWithOpenBlocks();
    const closed = reduceAll(open, [
      f.ended('b1'),
      f.toolUpdated('b2', 'call_1', { status: 'done' }),
      f.ended('b2'),
      f.confirmUpdated('b3', 'approved', { decision: 'approve', decidedAt: 2_000 }),
      f.ended('b3'),
    ]);
    expect(closed.anomalies).toEqual([]);
    const late = [
      f.delta('b1', '晚了'),
      f.delta('b2', '{}'),
      f.toolUpdated('b2', 'call_1', { status: 'failed' }),
      f.confirmUpdated('b3', 'rejected'),
      f.ended('b1', 'cancelled'),
    ];
    const next = reduceAll(closed, late);
    expect(next.anomalies.map((anomaly) => [anomaly.seq, anomaly.type, anomaly.code])).toEqual([
      [11, 'block.delta', 'block_closed'],
      [12, 'block.delta', 'block_closed'],
      [13, 'block.updated', 'block_closed'],
      [14, 'block.updated', 'block_closed'],
      [15, 'block.ended', 'block_closed'],
    ]);
    expect(next.blocks).toBe(closed.blocks);
    expect(next.blocks[0]).toMatchObject({ text: '我先', status: 'done' });
    expect(next.lastSeq).toBe(15);
  });

  it('records a second block.started for a blockId, or for a toolCallId, as duplicate_block', () => {
    const { f, state } = runWithOpenBlocks();
    const next = reduceAll(state, [
      f.textStarted('b1', 'reasoning'),
      f.toolStarted('b9', { toolCallId: 'call_1', name: 'cancel_order' }),
    ]);
    expect(next.anomalies.map((anomaly) => [anomaly.seq, anomaly.code])).toEqual([
      [6, 'duplicate_block'],
      [7, 'duplicate_block'],
    ]);
    expect(next.blocks).toBe(state.blocks);
    expect(next.blocks[0]).toMatchObject({ kind: 'answer', text: '我先' });
  });

  it('records a delta for a confirm card and a confirm update of a text block as wrong_block_kind', () => {
    const { f, state } = runWithOpenBlocks();
    const next = reduceAll(state, [f.delta('b3', '字'), f.confirmUpdated('b1', 'approved')]);
    expect(next.anomalies.map((anomaly) => [anomaly.seq, anomaly.code])).toEqual([
      [6, 'wrong_block_kind'],
      [7, 'wrong_block_kind'],
    ]);
    expect(next.blocks).toBe(state.blocks);
  });

  it('records an event of another run as run_mismatch and does not advance lastSeq', () => {
    const { state } = runWithOpenBlocks('r1');
    const other = createEventFactory('r2');
    other.skip(5);
    const next = reduce(state, other.delta('b1', '串台'));
    expect(next.anomalies).toEqual([
      { seq: 6, type: 'block.delta', code: 'run_mismatch', message: expect.stringContaining('r2') },
    ]);
    expect(next.lastSeq).toBe(5);
    expect({ ...next, anomalies: [] }).toEqual(state);
    // The real seq 6 of this run still applies afterwards.
    const f = createEventFactory('r1');
    f.skip(5);
    const after = reduce(next, f.delta('b1', '看下'));
    expect(after.lastSeq).toBe(6);
    expect(after.blocks[0]).toMatchObject({ text: '我先看下' });
  });

  it('records a seq gap as seq_gap but applies the event', () => {
    const { f, state } = runWithOpenBlocks();
    f.skip(3);
    const next = reduce(state, f.delta('b1', '看下'));
    expect(next.anomalies).toEqual([
      { seq: 9, type: 'block.delta', code: 'seq_gap', message: expect.stringContaining('6') },
    ]);
    expect(next.lastSeq).toBe(9);
    expect(next.blocks[0]).toMatchObject({ text: '我先看下' });
  });
});

describe('reduce: replay, done, snapshot', () => {
  it('returns the same state object for seq <= lastSeq', () => {
    const f = createEventFactory('r1');
    const events = [f.runStarted(), f.textStarted('b1', 'answer'), f.delta('b1', '你好')];
    const state = reduceAll(fresh(), events);
    for (const event of events) expect(reduce(state, event)).toBe(state);
    // Even a different event that claims an old seq: the log position decides, not the content.
    expect(reduce(state, { ...f.delta('b1', '不同'), seq: 3 })).toBe(state);
  });

  it('changes nothing on done', () => {
    const { f, state } = runWithOpenBlocks();
    expect(reduce(state, f.done())).toBe(state);
    expect(reduce(fresh(), f.done())).toEqual(fresh());
  });

  it('replaces the state on run.snapshot: blocks, status, lastSeq from the snapshot seq, hint cleared', () => {
    const { f, state } = runWithOpenBlocks();
    const withHint = reduce(state, f.hint('slow_tool', '工具响应较慢，请稍候'));
    expect(withHint.hint).toEqual({ code: 'slow_tool', text: '工具响应较慢，请稍候', at: f.now });
    const seed = reduceAll(fresh(), seedCancelOrderEvents());
    const message = { ...toMessage(seed), runId: 'r1' };
    const next = reduce(withHint, f.snapshot(message, 60));
    expect(next).toEqual({ ...message, lastSeq: 60, hint: null, anomalies: [] });
    expect(next.blocks).toHaveLength(9);
    expect(next.status).toBe('paused');
  });

  it('keeps earlier anomalies across a snapshot: they describe what this reader saw', () => {
    const { f, state } = runWithOpenBlocks();
    const withAnomaly = reduce(state, f.delta('nope', '字'));
    const next = reduce(withAnomaly, f.snapshot(toMessage(state), 7));
    expect(next.anomalies).toBe(withAnomaly.anomalies);
    expect(next.lastSeq).toBe(7);
  });

  it('ignores a snapshot that is not newer than the state', () => {
    const { f, state } = runWithOpenBlocks();
    expect(reduce(state, f.snapshot(toMessage(fresh()), 5))).toBe(state);
  });
});

describe('reduce: hints, finishing, cut-short text', () => {
  it('keeps run.hint as transient state only, and run.finished clears it', () => {
    const { f, state } = runWithOpenBlocks();
    const hinted = reduce(state, f.hint('max_iterations', '已达到最大迭代次数，正在生成当前执行结果的总结'));
    expect(hinted.hint).toEqual({
      code: 'max_iterations',
      text: '已达到最大迭代次数，正在生成当前执行结果的总结',
      at: f.now,
    });
    expect(toMessage(hinted)).not.toHaveProperty('hint');
    expect(toMessage(hinted)).toEqual(toMessage({ ...hinted, hint: null, lastSeq: hinted.lastSeq }));
    expect(Object.keys(toMessage(hinted)).sort()).toEqual(
      [
        'runId',
        'conversationId',
        'messageId',
        'status',
        'blocks',
        'pause',
        'finishReason',
        'error',
        'startedAt',
        'endedAt',
        'usage',
        'lastSeq',
      ].sort(),
    );
    const finished = reduce(hinted, f.finished('completed'));
    expect(finished.hint).toBeNull();
  });

  it('sums the usage of the steps that report it, and keeps none when no step does', () => {
    const f = createEventFactory('r1');
    const silent = reduceAll(createMessageState(), [
      f.runStarted(),
      f.stepFinished(1),
      f.finished('completed'),
    ]);
    expect(silent.usage).toBeNull();
    const g = createEventFactory('r2');
    const state = reduceAll(createMessageState(), [
      g.runStarted(),
      g.stepFinished(1, {
        finishReason: 'tool_calls',
        usage: { inputTokens: 1_000, outputTokens: 200, reasoningTokens: 150 },
      }),
      // A step without usage (a provider that stopped reporting it) adds nothing, and no zeros.
      g.stepFinished(2, { finishReason: 'tool_calls' }),
      g.stepFinished(3, { usage: { inputTokens: 1_400, outputTokens: 80, cachedInputTokens: 1_024 } }),
    ]);
    expect(state.usage).toEqual({
      inputTokens: 2_400,
      outputTokens: 280,
      reasoningTokens: 150,
      cachedInputTokens: 1_024,
    });
    // run.finished carries the producer's total, which a late reader that missed steps ends with too.
    const total = { inputTokens: 5_000, outputTokens: 300 };
    expect(reduce(state, g.finished('completed', { usage: total })).usage).toEqual(total);
    expect(reduce(state, g.finished('completed')).usage).toEqual(state.usage);
  });

  it('records run.finished cancelled with reason user_stop', () => {
    const { f, state } = runWithOpenBlocks();
    const paused = reduce(state, f.paused('confirmation', [{ toolCallId: 'call_1', name: 'cancel_order' }]));
    const finished = reduce(paused, f.finished('cancelled', { reason: 'user_stop' }));
    expect(toMessage(finished)).toMatchObject({
      status: 'cancelled',
      finishReason: 'user_stop',
      error: null,
      pause: null,
      endedAt: f.now,
    });
    // Stopping keeps the partial blocks.
    expect(finished.blocks).toBe(paused.blocks);
  });

  it('pauses with the pending calls and resumes without them', () => {
    const { f, state } = runWithOpenBlocks();
    const pending = [{ toolCallId: 'call_1', name: 'cancel_order', args: { orderId: '88235' } }];
    const paused = reduce(state, f.paused('confirmation', pending));
    expect([paused.status, paused.pause]).toEqual(['paused', { reason: 'confirmation', pending }]);
    const resumed = reduce(paused, f.resumed('confirmation', ['call_1']));
    expect([resumed.status, resumed.pause]).toEqual(['running', null]);
    expect(resumed.blocks).toBe(state.blocks);
  });

  it('records run.finished failed with its error', () => {
    const { f, state } = runWithOpenBlocks();
    const finished = reduce(
      state,
      f.finished('failed', { error: { code: 'model_error', message: '模型调用失败' } }),
    );
    expect([finished.status, finished.finishReason, finished.error]).toEqual([
      'failed',
      null,
      { code: 'model_error', message: '模型调用失败' },
    ]);
  });

  it('ends a text block with the status block.ended gives (cancelled), and done by default', () => {
    const f = createEventFactory('r1', { startAt: 1_000, stepMs: 10 });
    const state = reduceAll(fresh(), [
      f.runStarted(),
      f.textStarted('b1', 'answer'),
      f.delta('b1', '找到你的'),
      f.ended('b1', 'cancelled'),
      f.textStarted('b2', 'reasoning'),
      f.ended('b2'),
    ]);
    expect(state.blocks).toEqual([
      {
        blockId: 'b1',
        kind: 'answer',
        status: 'cancelled',
        text: '找到你的',
        startedAt: 1_010,
        endedAt: 1_030,
        durationMs: 20,
      },
      {
        blockId: 'b2',
        kind: 'reasoning',
        status: 'done',
        text: '',
        startedAt: 1_040,
        endedAt: 1_050,
        durationMs: 10,
      },
    ]);
  });

  it('leaves a tool status alone on block.ended: tools reach their final status through updates', () => {
    const { f, state } = runWithOpenBlocks();
    const next = reduce(state, f.ended('b2'));
    expect(next.blocks[1]).toMatchObject({ status: 'pending', endedAt: f.now });
  });
});

describe('reduce: purity', () => {
  it('never mutates its input (deep-frozen state and events, a whole scenario)', () => {
    const events = deepFreeze(seedCancelOrderEvents());
    const frozenStart = deepFreeze(fresh());
    const state = reduceAll(frozenStart, events);
    expect(state.blocks).toHaveLength(9);
    expect(frozenStart).toEqual(fresh());

    // Resume from the frozen result: decide, resume, run the tool, finish; plus a few anomalies.
    deepFreeze(state);
    const f = createEventFactory(SEED_CANCEL_ORDER.runId, { startAt: 1_750_000_010_000 });
    f.skip(state.lastSeq);
    const more = deepFreeze([
      f.confirmUpdated('b9', 'approved', { decision: 'approve', decidedAt: 1_750_000_010_000 }),
      f.ended('b9'),
      f.resumed('confirmation', ['call_cancel_order']),
      f.toolUpdated('b8', 'call_cancel_order', { status: 'running' }),
      f.toolUpdated('b8', 'call_cancel_order', {
        status: 'done',
        result: { orderId: '88235', status: '已取消' },
      }),
      f.ended('b8'),
      f.delta('nope', '字'),
      f.hint('slow_tool', '工具响应较慢，请稍候'),
      f.finished('completed'),
    ]);
    const after = reduceAll(state, more);
    expect(after.status).toBe('completed');
    expect(after.blocks.map((block) => block.status)).toEqual([
      'done',
      'done',
      'done',
      'done',
      'done',
      'done',
      'done',
      'done',
      'approved',
    ]);
    expect(after.anomalies.map((anomaly) => anomaly.code)).toEqual(['unknown_block']);
    // A snapshot into frozen state.
    const snapshot = deepFreeze(f.snapshot(toMessage(after), after.lastSeq + 1));
    expect(reduce(deepFreeze(after), snapshot).lastSeq).toBe(after.lastSeq + 1);
  });
});

describe('reduce: every event type', () => {
  interface Sample {
    event: (f: EventFactory) => RunEvent;
    /** What the documented effect looks like on the base state from `runWithOpenBlocks()`. */
    check: (after: MessageState, before: MessageState) => void;
  }
  const block = (state: MessageState, blockId: string): Block | undefined =>
    state.blocks.find((candidate) => candidate.blockId === blockId);

  // A Record over RunEventType: adding an event type without a sample here fails to compile.
  const samples: Record<RunEventType, Sample> = {
    'run.started': {
      // A fresh log would start with it; on the base state it re-announces the same run.
      event: (f) => f.runStarted({ conversationId: 'conv_other', messageId: 'msg_other' }),
      check: (after) => {
        expect([after.status, after.conversationId, after.messageId]).toEqual([
          'running',
          'conv_other',
          'msg_other',
        ]);
      },
    },
    'block.started': {
      event: (f) => f.textStarted('b4', 'reasoning'),
      check: (after, before) => {
        expect(after.blocks).toHaveLength(before.blocks.length + 1);
        expect(block(after, 'b4')).toMatchObject({ kind: 'reasoning', status: 'streaming', text: '' });
      },
    },
    'block.delta': {
      event: (f) => f.delta('b1', '看下'),
      check: (after) => expect(block(after, 'b1')).toMatchObject({ text: '我先看下' }),
    },
    'block.updated': {
      event: (f) => f.toolUpdated('b2', 'call_1', { status: 'awaiting_confirmation' }),
      check: (after) => expect(block(after, 'b2')).toMatchObject({ status: 'awaiting_confirmation' }),
    },
    'block.ended': {
      event: (f) => f.ended('b1'),
      check: (after) =>
        expect(block(after, 'b1')).toMatchObject({ status: 'done', endedAt: 1_050, durationMs: 40 }),
    },
    'run.hint': {
      event: (f) => f.hint('slow_tool', '工具响应较慢，请稍候'),
      check: (after) => {
        expect(after.hint).toMatchObject({ code: 'slow_tool' });
        expect(toMessage(after)).not.toHaveProperty('hint');
      },
    },
    'run.snapshot': {
      event: (f) => f.snapshot({ ...toMessage(fresh()), runId: 'r1', status: 'completed' }, 6),
      check: (after) => expect(after).toEqual({ ...fresh(), runId: 'r1', status: 'completed', lastSeq: 6 }),
    },
    'run.paused': {
      event: (f) => f.paused('tool_result', [{ toolCallId: 'call_1', name: 'cancel_order' }]),
      check: (after) => {
        expect(after.status).toBe('paused');
        expect(after.pause).toEqual({
          reason: 'tool_result',
          pending: [{ toolCallId: 'call_1', name: 'cancel_order' }],
        });
      },
    },
    'run.resumed': {
      event: (f) => f.resumed('confirmation', ['call_1']),
      check: (after) => expect([after.status, after.pause]).toEqual(['running', null]),
    },
    'step.finished': {
      event: (f) =>
        f.stepFinished(1, { finishReason: 'tool_calls', usage: { inputTokens: 120, outputTokens: 30 } }),
      check: (after, before) => {
        expect(after.usage).toEqual({ inputTokens: 120, outputTokens: 30 });
        expect(after.blocks).toBe(before.blocks);
        expect(after.status).toBe(before.status);
      },
    },
    'run.finished': {
      event: (f) => f.finished('interrupted', { reason: 'server_restart' }),
      check: (after) => {
        expect([after.status, after.finishReason, after.endedAt]).toEqual([
          'interrupted',
          'server_restart',
          1_050,
        ]);
      },
    },
    done: {
      event: (f) => f.done(),
      check: (after, before) => expect(after).toBe(before),
    },
  };

  it.each(RUN_EVENT_TYPES)('%s', (type) => {
    const { f, state } = runWithOpenBlocks();
    const sample = samples[type];
    const event = sample.event(f);
    expect(event.type).toBe(type);
    const after = reduce(state, event);
    sample.check(after, state);
    // The base state has open blocks, and a run must close its blocks before it finishes.
    expect(after.anomalies.map((anomaly) => anomaly.code)).toEqual(
      type === 'run.finished' ? ['open_block_at_finish'] : [],
    );
    if (event.type === 'done') return;
    // Every logged type moves the reader's position to its seq, and is a no-op when replayed.
    expect(after.lastSeq).toBe(event.seq);
    expect(after).not.toBe(state);
    expect(reduce(after, event)).toBe(after);
  });

  it('has a sample for exactly the protocol types', () => {
    expect(Object.keys(samples).sort()).toEqual([...RUN_EVENT_TYPES].sort());
  });
});

describe('reduce: producer mistakes are reported', () => {
  it('reports events after run.finished and does not apply them', () => {
    const f = createEventFactory('r1');
    const finished = reduceAll(createMessageState(), [f.runStarted(), f.finished('completed')]);
    const late = f.textStarted('b9', 'answer');
    const after = reduce(finished, late);
    expect(after.blocks).toEqual([]);
    expect(after.status).toBe('completed');
    expect(after.lastSeq).toBe(late.seq);
    expect(after.anomalies.map((anomaly) => anomaly.code)).toEqual(['after_finish']);
    expect(reduce(after, late)).toBe(after);
  });

  it('reports blocks left open at run.finished, and still finishes the run', () => {
    const f = createEventFactory('r1');
    const state = reduceAll(createMessageState(), [
      f.runStarted(),
      f.textStarted('b1', 'answer'),
      f.delta('b1', '半句'),
      f.finished('cancelled', { reason: 'user_stop' }),
    ]);
    expect(state.status).toBe('cancelled');
    expect(state.anomalies).toMatchObject([
      { code: 'open_block_at_finish', message: expect.stringContaining('b1') },
    ]);
  });

  it('pins the run of a reader that joins mid-log, and reports another run even with an old seq', () => {
    const f = createEventFactory('r1');
    const other = createEventFactory('r2');
    f.skip(4);
    const joined = reduce(createMessageState(), f.textStarted('b1', 'answer'));
    expect(joined.runId).toBe('r1');
    expect(joined.anomalies.map((anomaly) => anomaly.code)).toEqual(['seq_gap']);
    const stray = reduce(joined, other.runStarted());
    expect(stray.lastSeq).toBe(joined.lastSeq);
    expect(stray.anomalies.map((anomaly) => anomaly.code)).toEqual(['seq_gap', 'run_mismatch']);
  });

  it('refuses a snapshot whose message belongs to another run', () => {
    const f = createEventFactory('r1');
    const state = reduce(createMessageState(), f.runStarted());
    const snapshot = f.snapshot({ ...toMessage(state), runId: 'r2' }, 5);
    const after = reduce(state, snapshot);
    expect(after.lastSeq).toBe(1);
    expect(after.anomalies.map((anomaly) => anomaly.code)).toEqual(['run_mismatch']);
  });
});
