import type { CSSProperties } from 'react';
import type {
  BlockKind,
  ConfirmBlockStatus,
  Message,
  TextBlockStatus,
  ToolBlockStatus,
} from '../../protocol/index.ts';
import { formatSeconds, type MessageKey, useI18n } from '../i18n/index.ts';
import { layoutTimeline, type TimelineRow } from './timeline-layout.ts';
import { usageSummary } from './usage-summary.ts';
import './timeline.css';

export interface RunTimelineProps {
  message: Message;
  /** The clock, for blocks still open. */
  now: number;
  id?: string;
}

/**
 * A small waterfall of one run: a row per block with its label, a bar from its start to its end on
 * a shared axis (coloured by kind, hatched while open), and its duration. The chart is one image to
 * assistive technology, summarised in its label; a visually hidden table carries the same rows.
 * Below it, what the run's model calls cost in tokens, when the provider reported it (nothing when
 * it did not: an unknown cost is not a zero).
 */
export function RunTimeline({ message, now, id }: RunTimelineProps) {
  const { t, locale } = useI18n();
  const layout = layoutTimeline(message, now, t);
  // Honest at every size: a step faster than one decimal can show did not take "0.0 秒".
  const seconds = (ms: number) =>
    ms < 100 ? t('units.underTenthSecond') : t('units.seconds', { seconds: formatSeconds(ms) });
  const duration = (row: TimelineRow) =>
    row.open ? t('timeline.open', { duration: seconds(row.durationMs) }) : seconds(row.durationMs);

  return (
    <div className="run-timeline" id={id}>
      <div
        className="run-timeline-chart"
        data-testid="run-timeline"
        role="img"
        aria-label={t('timeline.summary', {
          seconds: formatSeconds(layout.totalMs),
          count: layout.rows.length,
        })}
      >
        <div className="run-timeline-title">
          {t('timeline.title', { seconds: formatSeconds(layout.totalMs) })}
        </div>
        <div className="run-timeline-rows">
          {layout.rows.map((row) => (
            <div
              className="run-timeline-row"
              key={row.blockId}
              data-testid="timeline-row"
              data-kind={row.kind}
              data-status={row.status}
              data-open={row.open || undefined}
            >
              <span className="run-timeline-label" title={row.label}>
                {row.label}
              </span>
              <span className="run-timeline-track">
                <span
                  className="run-timeline-bar"
                  style={{ left: `${row.leftPercent}%`, width: `${row.widthPercent}%` }}
                />
                <RowDuration row={row} text={seconds(row.durationMs)} />
              </span>
            </div>
          ))}
        </div>
        <div className="run-timeline-axis">
          <span className="run-timeline-label" />
          <span className="run-timeline-ticks">
            <span>0</span>
            <span>{seconds(layout.totalMs)}</span>
          </span>
        </div>
      </div>
      {message.usage && (
        <p
          className="run-timeline-usage"
          data-testid="run-usage"
          data-input={message.usage.inputTokens}
          data-output={message.usage.outputTokens}
          data-reasoning={message.usage.reasoningTokens}
          data-cached={message.usage.cachedInputTokens}
        >
          {usageSummary(message.usage, t, locale)}
        </p>
      )}
      <table className="run-timeline-sr">
        <caption>{t('timeline.title', { seconds: formatSeconds(layout.totalMs) })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('timeline.column.step')}</th>
            <th scope="col">{t('timeline.column.start')}</th>
            <th scope="col">{t('timeline.column.duration')}</th>
            <th scope="col">{t('timeline.column.status')}</th>
          </tr>
        </thead>
        <tbody>
          {layout.rows.map((row) => (
            <tr key={row.blockId}>
              <th scope="row">{row.label}</th>
              <td>{seconds(row.startOffsetMs)}</td>
              <td>{duration(row)}</td>
              <td>{t(statusKey(row.kind, row.status))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RowDuration({ row, text }: { row: TimelineRow; text: string }) {
  const { place, style } = durationPlacement(row);
  return (
    <span className="run-timeline-duration" data-place={place} style={style}>
      {text}
    </span>
  );
}

/**
 * The duration text sits after the bar's end, or before its start when the bar ends near the right
 * edge, or inside the bar (in the bar's contrast colour) when the bar spans nearly the whole axis.
 */
function durationPlacement(row: TimelineRow): { place: 'after' | 'before' | 'inside'; style: CSSProperties } {
  const end = row.leftPercent + row.widthPercent;
  if (end <= 72) return { place: 'after', style: { left: `calc(${end}% + 4px)` } };
  if (row.leftPercent >= 28)
    return { place: 'before', style: { right: `calc(${100 - row.leftPercent}% + 4px)` } };
  return { place: 'inside', style: { right: `calc(${100 - end}% + 6px)` } };
}

const TEXT_STATUS: Record<TextBlockStatus, MessageKey> = {
  streaming: 'block.text.status.streaming',
  done: 'block.text.status.done',
  cancelled: 'block.text.status.cancelled',
  interrupted: 'block.text.status.interrupted',
};

const TOOL_STATUS: Record<ToolBlockStatus, MessageKey> = {
  pending: 'block.tool.status.pending',
  running: 'block.tool.status.running',
  awaiting_confirmation: 'block.tool.status.awaiting_confirmation',
  done: 'block.tool.status.done',
  failed: 'block.tool.status.failed',
  rejected: 'block.tool.status.rejected',
  cancelled: 'block.tool.status.cancelled',
  interrupted: 'block.tool.status.interrupted',
};

const CONFIRM_STATUS: Record<ConfirmBlockStatus, MessageKey> = {
  pending: 'block.confirm.pending',
  approved: 'block.confirm.approved',
  rejected: 'block.confirm.rejected',
  expired: 'block.confirm.expired',
};

function statusKey(kind: BlockKind, status: TimelineRow['status']): MessageKey {
  const table: Partial<Record<TimelineRow['status'], MessageKey>> =
    kind === 'tool' ? TOOL_STATUS : kind === 'confirm' ? CONFIRM_STATUS : TEXT_STATUS;
  return table[status] ?? 'timeline.column.status';
}
