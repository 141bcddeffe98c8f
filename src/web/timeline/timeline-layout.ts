import type { Block, BlockKind, Message } from '../../protocol/index.ts';
import { type MessageKey, zhCN } from '../i18n/messages.ts';

/**
 * The geometry of a run's waterfall chart: one row per block, placed on a shared time axis that
 * starts when the run started. Pure, so the chart is a plain function of the message and the clock.
 */

export interface TimelineRow {
  blockId: string;
  kind: BlockKind;
  /** A tool's title (取消订单), else the kind's name (思考, 回答, 等待确认, 错误). */
  label: string;
  /** From the start of the run to the block's start. */
  startOffsetMs: number;
  /** From the block's start to its end, or to now (the run's end, if it ended) while it is open. */
  durationMs: number;
  /** The block has not ended (still streaming, running, or a card waiting for a decision). */
  open: boolean;
  leftPercent: number;
  widthPercent: number;
  status: Block['status'];
}

export interface TimelineLayout {
  /** The length of the axis: the run so far, or all of it once it ended. */
  totalMs: number;
  rows: TimelineRow[];
}

/** The narrowest bar, so a block that took 0 ms is still visible. */
export const MIN_BAR_PERCENT = 0.5;

export type TimelineTranslate = (key: MessageKey) => string;

const KIND_LABEL: Record<BlockKind, MessageKey> = {
  reasoning: 'timeline.kind.reasoning',
  answer: 'timeline.kind.answer',
  tool: 'timeline.kind.tool',
  confirm: 'timeline.kind.confirm',
  error: 'timeline.kind.error',
};

export function layoutTimeline(
  message: Message,
  now: number,
  translate: TimelineTranslate = (key) => zhCN[key],
): TimelineLayout {
  const { blocks } = message;
  const starts = blocks.map((block) => block.startedAt);
  if (message.startedAt !== null) starts.push(message.startedAt);
  if (starts.length === 0) return { totalMs: 0, rows: [] };
  const origin = Math.min(...starts);
  // An open block grows with the clock while the run lives; a finished run stops it at its end.
  const openEnd = message.endedAt ?? now;
  const spans = blocks.map((block) => {
    const end = block.endedAt ?? openEnd;
    return { block, start: block.startedAt - origin, durationMs: Math.max(0, end - block.startedAt) };
  });
  const live = message.endedAt === null && (message.status === 'running' || message.status === 'paused');
  const runEnd = message.endedAt ?? (live ? now : origin);
  const totalMs = Math.max(runEnd - origin, ...spans.map(({ start, durationMs }) => start + durationMs), 0);
  const scale = totalMs > 0 ? totalMs : 1;
  const rows = spans.map(({ block, start, durationMs }): TimelineRow => {
    const widthPercent = Math.min(100, Math.max(MIN_BAR_PERCENT, (durationMs / scale) * 100));
    const leftPercent = Math.max(0, Math.min((start / scale) * 100, 100 - widthPercent));
    return {
      blockId: block.blockId,
      kind: block.kind,
      label: labelOf(block, translate),
      startOffsetMs: start,
      durationMs,
      open: block.endedAt === null,
      leftPercent: round(leftPercent),
      widthPercent: round(widthPercent),
      status: block.status,
    };
  });
  return { totalMs, rows };
}

function labelOf(block: Block, translate: TimelineTranslate): string {
  if (block.kind === 'tool') return block.title.trim() || block.name;
  return translate(KIND_LABEL[block.kind]);
}

function round(percent: number): number {
  return Math.round(percent * 1000) / 1000;
}
