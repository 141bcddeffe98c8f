import { useCallback, useId, useMemo, useState } from 'react';
import type { Block, MessageState } from '../../protocol/index.ts';
import { type MessageKey, useI18n } from '../i18n/index.ts';
import { RunTimeline } from '../timeline/index.ts';
import { AnswerBlock } from './answer-block.tsx';
import './blocks.css';
import { ConfirmCard } from './confirm-card.tsx';
import { ErrorBlock, ErrorNotice } from './error-block.tsx';
import type { MessageActions } from './message-actions.ts';
import { ReasoningBlock } from './reasoning-block.tsx';
import { sourceEvidenceOf } from './source-evidence.ts';
import { ToolBlock } from './tool-block.tsx';

export interface AssistantMessageProps {
  state: MessageState;
  actions: MessageActions;
  /** The clock, for the timeline of a run still going. */
  now: number;
}

/** Hints the page knows how to say in every language; any other hint shows the server's text. */
const HINTS: Partial<Record<string, MessageKey>> = {
  max_iterations: 'hint.max_iterations',
};

/**
 * One assistant message: its blocks in order, the transient hint, a closing notice when the run was
 * stopped, interrupted or failed without an error block, and a timeline of the run on request. The
 * blocks render from block data only, so a refreshed page shows the same list.
 */
export function AssistantMessage({ state, actions, now }: AssistantMessageProps) {
  const { t } = useI18n();
  const [showTimeline, setShowTimeline] = useState(false);
  const timelineId = useId();
  const hintKey = state.hint ? HINTS[state.hint.code] : undefined;
  const evidence = useMemo(() => sourceEvidenceOf(state.blocks), [state.blocks]);
  const { openSource } = actions;
  const openCitedSource = useCallback(
    (citation: string) => openSource(citation, evidence.get(citation)),
    [openSource, evidence],
  );
  const blockActions = useMemo(
    () => ({ ...actions, openSource: openCitedSource }),
    [actions, openCitedSource],
  );
  const waiting =
    (state.status === 'running' || state.status === 'idle') &&
    state.blocks.length === 0 &&
    state.hint === null;

  return (
    <article className="assistant-message" data-status={state.status} data-testid="assistant-message">
      <div className="assistant-blocks">
        {state.blocks.map((block) => (
          <BlockView key={block.blockId} block={block} actions={blockActions} />
        ))}
      </div>
      {waiting && (
        <p className="assistant-waiting" role="status">
          <span className="assistant-waiting-dots" aria-hidden="true" />
          {t('message.status.running')}
        </p>
      )}
      {state.hint && (
        <p className="assistant-hint" role="status" data-code={state.hint.code}>
          {hintKey ? t(hintKey) : state.hint.text}
        </p>
      )}
      <MessageFooter state={state} />
      {state.blocks.length > 0 && (
        <div className="assistant-toolbar">
          <button
            type="button"
            className="assistant-timeline-toggle"
            aria-expanded={showTimeline}
            aria-controls={showTimeline ? timelineId : undefined}
            onClick={() => setShowTimeline((shown) => !shown)}
          >
            {t('timeline.show')}
          </button>
        </div>
      )}
      {showTimeline && state.blocks.length > 0 && <RunTimeline id={timelineId} message={state} now={now} />}
    </article>
  );
}

function BlockView({ block, actions }: { block: Block; actions: MessageActions }) {
  switch (block.kind) {
    case 'reasoning':
      return <ReasoningBlock block={block} />;
    case 'answer':
      return <AnswerBlock block={block} openSource={actions.openSource} />;
    case 'error':
      return <ErrorBlock block={block} />;
    case 'tool':
      return <ToolBlock block={block} />;
    case 'confirm':
      return (
        <ConfirmCard
          block={block}
          decide={actions.decide}
          deciding={actions.deciding.has(block.toolCallId)}
          decisionError={actions.decisionErrors.get(block.toolCallId)}
        />
      );
  }
}

/** How the run ended, when its blocks do not already say it. */
function MessageFooter({ state }: { state: MessageState }) {
  const { t } = useI18n();
  switch (state.status) {
    case 'cancelled':
      return (
        <p className="message-notice" data-notice="cancelled">
          {state.finishReason === 'user_stop' ? t('message.stoppedByUser') : t('message.cancelled')}
        </p>
      );
    case 'interrupted':
      return (
        <p className="message-notice message-notice-warning" data-notice="interrupted">
          {t('message.interrupted')}
        </p>
      );
    case 'failed':
      if (state.blocks.some((block) => block.kind === 'error')) return null;
      return (
        <div className="message-notice-error" data-notice="failed">
          <ErrorNotice text={state.error?.message ?? ''} />
        </div>
      );
    default:
      return null;
  }
}
