import { describe, expect, it } from 'vitest';
import type { Block, Message } from '../../protocol/index.ts';
import { createMessageState, reduceAll, toMessage } from '../../protocol/index.ts';
import { seedCancelOrderEvents } from '../../protocol/test-support/index.ts';
import { en } from '../i18n/messages.ts';
import { layoutTimeline, MIN_BAR_PERCENT } from './timeline-layout.ts';

const T0 = 1_800_000_000_000;

function message(fields: Partial<Message> & { blocks: Block[] }): Message {
  return { ...toMessage(createMessageState()), status: 'completed', startedAt: T0, endedAt: null, ...fields };
}

function text(
  blockId: string,
  kind: 'reasoning' | 'answer' | 'error',
  start: number,
  end: number | null,
): Block {
  return {
    blockId,
    kind,
    status: end === null ? 'streaming' : 'done',
    text: '…',
    startedAt: T0 + start,
    endedAt: end === null ? null : T0 + end,
    durationMs: end === null ? null : end - start,
  };
}

function tool(blockId: string, title: string, start: number, end: number | null): Block {
  return {
    blockId,
    kind: 'tool',
    toolCallId: `call_${blockId}`,
    name: 'cancel_order',
    title,
    status: end === null ? 'awaiting_confirmation' : 'done',
    argsText: '',
    startedAt: T0 + start,
    endedAt: end === null ? null : T0 + end,
    durationMs: end === null ? null : 3,
  };
}

function confirm(blockId: string, start: number, end: number | null): Block {
  return {
    blockId,
    kind: 'confirm',
    toolCallId: 'call_c1',
    title: '取消订单',
    description: '订单 88235 · Apple Watch Series 12',
    details: [],
    status: end === null ? 'pending' : 'approved',
    startedAt: T0 + start,
    endedAt: end === null ? null : T0 + end,
    durationMs: end === null ? null : end - start,
  };
}

describe('layoutTimeline', () => {
  it('places every block on an axis from the start of the run to its end', () => {
    const layout = layoutTimeline(
      message({
        endedAt: T0 + 1000,
        blocks: [
          text('r', 'reasoning', 0, 200),
          tool('t', '订单查询', 200, 250),
          text('a', 'answer', 500, 1000),
        ],
      }),
      T0 + 99_999,
    );
    expect(layout.totalMs).toBe(1000);
    expect(layout.rows).toEqual([
      {
        blockId: 'r',
        kind: 'reasoning',
        label: '思考',
        startOffsetMs: 0,
        durationMs: 200,
        open: false,
        leftPercent: 0,
        widthPercent: 20,
        status: 'done',
      },
      {
        blockId: 't',
        kind: 'tool',
        label: '订单查询',
        startOffsetMs: 200,
        durationMs: 50,
        open: false,
        leftPercent: 20,
        widthPercent: 5,
        status: 'done',
      },
      {
        blockId: 'a',
        kind: 'answer',
        label: '回答',
        startOffsetMs: 500,
        durationMs: 500,
        open: false,
        leftPercent: 50,
        widthPercent: 50,
        status: 'done',
      },
    ]);
  });

  it('labels tools by title (or name) and other kinds by the given translation', () => {
    const layout = layoutTimeline(
      message({
        endedAt: T0 + 100,
        blocks: [
          tool('t1', '取消订单', 0, 10),
          tool('t2', '  ', 10, 20),
          confirm('c', 20, 30),
          text('e', 'error', 30, 40),
          text('r', 'reasoning', 40, 50),
          text('a', 'answer', 50, 60),
        ],
      }),
      T0,
      (key) => en[key],
    );
    expect(layout.rows.map((row) => row.label)).toEqual([
      '取消订单',
      'cancel_order',
      'Awaiting confirmation',
      'Error',
      'Thinking',
      'Answer',
    ]);
    expect(layoutTimeline(message({ blocks: [confirm('c', 0, 1)] }), T0).rows[0]?.label).toBe('等待确认');
  });

  it('measures a paused run and its open confirmation card to now', () => {
    const paused = message({
      status: 'paused',
      blocks: [text('a', 'answer', 0, 100), tool('t', '取消订单', 100, null), confirm('c', 110, null)],
    });
    const layout = layoutTimeline(paused, T0 + 10_110);
    expect(layout.totalMs).toBe(10_110);
    const card = layout.rows[2];
    expect(card).toMatchObject({ kind: 'confirm', open: true, startOffsetMs: 110, durationMs: 10_000 });
    expect(card?.leftPercent).toBeCloseTo((110 / 10_110) * 100, 2);
    expect((card?.leftPercent ?? 0) + (card?.widthPercent ?? 0)).toBeCloseTo(100, 2);
    // The clock moves on: the open card grows, the closed answer shrinks relative to the axis.
    const later = layoutTimeline(paused, T0 + 20_110);
    expect(later.rows[2]?.durationMs).toBe(20_000);
    expect(later.rows[0]?.widthPercent).toBeLessThan(layout.rows[0]?.widthPercent ?? 0);
  });

  it('stops a running run at now and a finished run at its end', () => {
    const running = message({ status: 'running', blocks: [text('a', 'answer', 0, null)] });
    expect(layoutTimeline(running, T0 + 750)).toMatchObject({
      totalMs: 750,
      rows: [{ open: true, durationMs: 750, widthPercent: 100 }],
    });
    // A block the producer never closed stops at the run's end, not at the reader's clock.
    const finished = message({
      status: 'interrupted',
      endedAt: T0 + 400,
      blocks: [text('a', 'answer', 0, null)],
    });
    expect(layoutTimeline(finished, T0 + 999_999)).toMatchObject({
      totalMs: 400,
      rows: [{ open: true, durationMs: 400 }],
    });
  });

  it('gives a 0 ms block a visible bar that stays inside the axis', () => {
    const layout = layoutTimeline(
      message({ endedAt: T0 + 1000, blocks: [tool('t0', 'a', 0, 0), tool('t1', 'b', 1000, 1000)] }),
      T0,
    );
    expect(layout.rows.map((row) => [row.leftPercent, row.widthPercent])).toEqual([
      [0, MIN_BAR_PERCENT],
      [100 - MIN_BAR_PERCENT, MIN_BAR_PERCENT],
    ]);
  });

  it('starts the axis at the earliest block when the run start is unknown or later', () => {
    const layout = layoutTimeline(
      message({ startedAt: null, endedAt: T0 + 600, blocks: [text('r', 'reasoning', 100, 600)] }),
      T0,
    );
    expect(layout).toMatchObject({
      totalMs: 500,
      rows: [{ startOffsetMs: 0, leftPercent: 0, widthPercent: 100 }],
    });
    const early = layoutTimeline(
      message({ endedAt: T0 + 100, blocks: [text('r', 'reasoning', -100, 100)] }),
      T0,
    );
    expect(early).toMatchObject({
      totalMs: 200,
      rows: [{ startOffsetMs: 0, leftPercent: 0, widthPercent: 100 }],
    });
  });

  it('has no rows and no length before anything happened', () => {
    expect(layoutTimeline(toMessage(createMessageState()), T0)).toEqual({ totalMs: 0, rows: [] });
    const started = message({ status: 'running', blocks: [] });
    expect(layoutTimeline(started, T0 + 300)).toEqual({ totalMs: 300, rows: [] });
  });

  it('lays out the seed run paused on its confirmation card', () => {
    const state = reduceAll(createMessageState(), seedCancelOrderEvents());
    expect(state.status).toBe('paused');
    const startedAt = state.startedAt ?? 0;
    const last = Math.max(...state.blocks.map((block) => block.startedAt));
    const layout = layoutTimeline(state, last + 5000);
    expect(layout.rows.map((row) => row.kind)).toEqual([
      'reasoning',
      'answer',
      'tool',
      'reasoning',
      'tool',
      'reasoning',
      'answer',
      'tool',
      'confirm',
    ]);
    expect(layout.rows.map((row) => row.label)).toContain('加载技能手册');
    expect(layout.totalMs).toBe(last + 5000 - startedAt);
    for (const row of layout.rows) {
      expect(row.leftPercent).toBeGreaterThanOrEqual(0);
      expect(row.widthPercent).toBeGreaterThanOrEqual(MIN_BAR_PERCENT);
      expect(row.leftPercent + row.widthPercent).toBeLessThanOrEqual(100 + 1e-9);
    }
    expect(layout.rows.at(-1)).toMatchObject({ open: true, status: 'pending' });
    // Rows follow the blocks in time: each starts no earlier than the one before.
    const offsets = layout.rows.map((row) => row.startOffsetMs);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });
});
