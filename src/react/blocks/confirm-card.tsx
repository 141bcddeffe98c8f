import { memo, useEffect, useRef } from 'react';
import type { ConfirmationDecision } from '../../client/index.ts';
import type { ConfirmBlock } from '../../protocol/index.ts';
import { type BlockMessageKey, useBlockText } from '../text/index.ts';
import { blockRootProps } from './block-root-props.ts';
import { type BlockStyleProps, joinClassNames, resolveClassNames } from './class-names.ts';

export interface ConfirmCardProps extends BlockStyleProps {
  block: ConfirmBlock;
  /** Approve or reject; without it the card's buttons are disabled (a read-only view). */
  decide?: ((toolCallId: string, decision: ConfirmationDecision) => void) | undefined;
  /** The decision for this card is in flight. */
  deciding?: boolean | undefined;
  /** The server refused this card's decision (e.g. 409 decision_conflict). */
  decisionError?: string | undefined;
}

const STATUS_LABEL: Record<ConfirmBlock['status'], BlockMessageKey> = {
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
  deciding = false,
  decisionError,
  className,
  classNames,
}: ConfirmCardProps) {
  const { t } = useBlockText();
  const names = resolveClassNames(classNames);
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
  const press = (decision: ConfirmationDecision) => {
    if (decide === undefined) return;
    pressed.current = true;
    decide(block.toolCallId, decision);
  };
  const disabled = deciding || decide === undefined;
  return (
    <>
      <div {...blockRootProps(block, names, className)}>
        <fieldset className={names.confirmCard} aria-label={block.title} aria-busy={deciding || undefined}>
          <div className={names.confirmTitle}>{block.title}</div>
          {block.description !== '' && <p className={names.confirmDescription}>{block.description}</p>}
          {block.details.length > 0 && (
            <dl className={names.confirmDetails}>
              {block.details.map((detail, index) => (
                // Labels may repeat; the order of details never changes.
                // biome-ignore lint/suspicious/noArrayIndexKey: a card's details are fixed once it starts
                <div className={names.confirmDetail} key={index}>
                  <dt>{detail.label}</dt>
                  <dd>{detail.value}</dd>
                </div>
              ))}
            </dl>
          )}
          {pending ? (
            <div className={names.confirmActions}>
              <button
                type="button"
                className={joinClassNames(names.confirmButton, names.confirmApprove)}
                data-testid="confirm-approve"
                disabled={disabled}
                onClick={() => press('approve')}
              >
                {deciding ? t('block.confirm.deciding') : t('block.confirm.approve')}
              </button>
              <button
                type="button"
                className={joinClassNames(names.confirmButton, names.confirmReject)}
                data-testid="confirm-reject"
                disabled={disabled}
                onClick={() => press('reject')}
              >
                {t('block.confirm.reject')}
              </button>
            </div>
          ) : (
            <p className={names.confirmDecision} data-status={block.status} ref={decisionLine} tabIndex={-1}>
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
        <p className={names.confirmError} role="alert">
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
