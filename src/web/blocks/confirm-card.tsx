import { memo, useEffect, useRef } from 'react';
import type { ConfirmBlock } from '../../protocol/index.ts';
import { type MessageKey, useI18n } from '../i18n/index.ts';
import './blocks.css';
import { blockRootProps } from './block-root-props.ts';
import type { MessageActions } from './message-actions.ts';

export interface ConfirmCardProps {
  block: ConfirmBlock;
  decide: MessageActions['decide'];
  /** The decision for this card is in flight. */
  deciding: boolean;
  /** The server refused this card's decision (e.g. 409 decision_conflict). */
  decisionError: string | undefined;
}

const STATUS_LABEL: Record<ConfirmBlock['status'], MessageKey> = {
  pending: 'block.confirm.pending',
  approved: 'block.confirm.approved',
  rejected: 'block.confirm.rejected',
  expired: 'block.confirm.expired',
};

/**
 * A confirmation card for a write: the action (取消订单), its object (订单 88235 · Apple Watch …), the
 * details, and while it is pending 确认 / 取消. Once decided it shows the decision and when, and no
 * buttons. A refused decision is shown under the card, outside the block, since it is page state.
 */
export const ConfirmCard = memo(function ConfirmCard({
  block,
  decide,
  deciding,
  decisionError,
}: ConfirmCardProps) {
  const { t } = useI18n();
  const pending = block.status === 'pending';
  // A keyboard user who pressed 确认 must not be dropped to the top of the page when the buttons go:
  // focus moves to the line that states the decision.
  const pressed = useRef(false);
  const decisionLine = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!pending && pressed.current) {
      pressed.current = false;
      decisionLine.current?.focus();
    }
  }, [pending]);
  const press = (decision: 'approve' | 'reject') => {
    pressed.current = true;
    decide(block.toolCallId, decision);
  };
  return (
    <>
      <div {...blockRootProps(block)}>
        <fieldset className="confirm-card" aria-label={block.title} aria-busy={deciding || undefined}>
          <div className="confirm-title">{block.title}</div>
          {block.description !== '' && <p className="confirm-description">{block.description}</p>}
          {block.details.length > 0 && (
            <dl className="confirm-details">
              {block.details.map((detail, index) => (
                // Labels may repeat; the order of details never changes.
                // biome-ignore lint/suspicious/noArrayIndexKey: a card's details are fixed once it starts
                <div className="confirm-detail" key={index}>
                  <dt>{detail.label}</dt>
                  <dd>{detail.value}</dd>
                </div>
              ))}
            </dl>
          )}
          {pending ? (
            <div className="confirm-actions">
              <button
                type="button"
                className="confirm-button confirm-approve"
                data-testid="confirm-approve"
                disabled={deciding}
                onClick={() => press('approve')}
              >
                {deciding ? t('block.confirm.deciding') : t('block.confirm.approve')}
              </button>
              <button
                type="button"
                className="confirm-button confirm-reject"
                data-testid="confirm-reject"
                disabled={deciding}
                onClick={() => press('reject')}
              >
                {t('block.confirm.reject')}
              </button>
            </div>
          ) : (
            <p className="confirm-decision" data-status={block.status} ref={decisionLine} tabIndex={-1}>
              {block.decision
                ? t('block.confirm.decidedAt', {
                    decision: t(STATUS_LABEL[block.status]),
                    time: clockTime(block.decision.decidedAt),
                  })
                : t(STATUS_LABEL[block.status])}
            </p>
          )}
        </fieldset>
      </div>
      {decisionError !== undefined && decisionError !== '' && (
        <p className="confirm-error" role="alert">
          {decisionError}
        </p>
      )}
    </>
  );
});

/** HH:MM:SS in local time. */
function clockTime(epochMs: number): string {
  const date = new Date(epochMs);
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((part) => String(part).padStart(2, '0'))
    .join(':');
}
