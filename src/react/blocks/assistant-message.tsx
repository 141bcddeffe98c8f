import { type ComponentType, type ReactNode, useCallback, useMemo } from 'react';
import type { Block, MessageState } from '../../protocol/index.ts';
import { type BlockMessageKey, useBlockText } from '../text/index.ts';
import { AnswerBlock, type AnswerBlockProps } from './answer-block.tsx';
import { joinClassNames, type RunstreamClassNames, resolveClassNames } from './class-names.ts';
import { ConfirmCard, type ConfirmCardProps } from './confirm-card.tsx';
import { ErrorBlock, type ErrorBlockProps, ErrorNotice } from './error-block.tsx';
import type { MessageActions } from './message-actions.ts';
import { ReasoningBlock, type ReasoningBlockProps } from './reasoning-block.tsx';
import { sourceEvidenceOf } from './source-evidence.ts';
import { ToolBlock, type ToolBlockProps } from './tool-block.tsx';
import { cardTitlesOf, toolTitle } from './tool-title.ts';

/** The component each block kind renders with; any of them can be replaced (`components`). */
export interface BlockComponents {
  reasoning: ComponentType<ReasoningBlockProps>;
  answer: ComponentType<AnswerBlockProps>;
  tool: ComponentType<ToolBlockProps>;
  confirm: ComponentType<ConfirmCardProps>;
  error: ComponentType<ErrorBlockProps>;
}

export const defaultBlockComponents: BlockComponents = {
  reasoning: ReasoningBlock,
  answer: AnswerBlock,
  tool: ToolBlock,
  confirm: ConfirmCard,
  error: ErrorBlock,
};

export interface AssistantMessageProps {
  /** The message: a run stream's reduced state, or `fromMessage()` of a persisted one. */
  state: MessageState;
  /** What the blocks may ask of the page (`useRunstreamChat`'s `actions`); none for a read-only view. */
  actions?: Partial<MessageActions> | undefined;
  /** Added to the message's root element. */
  className?: string | undefined;
  /** Replaces the class name of any part of the message and its blocks (see `defaultClassNames`). */
  classNames?: Partial<RunstreamClassNames> | undefined;
  /** Components of your own for any block kind; they get the same props as the built-in ones. */
  components?: Partial<BlockComponents> | undefined;
  /** Rendered at the end of the message, e.g. a toolbar of your own. */
  children?: ReactNode;
}

/** Hints the blocks know how to say in every language; any other hint shows the server's text. */
const HINTS: Partial<Record<string, BlockMessageKey>> = {
  max_iterations: 'hint.max_iterations',
};

const NO_DECISIONS: ReadonlySet<string> = new Set();
const NO_DECISION_ERRORS: ReadonlyMap<string, string> = new Map();

/**
 * One assistant message: its blocks in order, the transient hint, and a closing notice when the run
 * was stopped, interrupted or failed without an error block. The blocks render from block data only,
 * so a refreshed page shows the same list.
 */
export function AssistantMessage({
  state,
  actions = {},
  className,
  classNames,
  components,
  children,
}: AssistantMessageProps) {
  const { t } = useBlockText();
  const names = useMemo(() => resolveClassNames(classNames), [classNames]);
  const hintKey = state.hint ? HINTS[state.hint.code] : undefined;
  const evidence = useMemo(() => sourceEvidenceOf(state.blocks), [state.blocks]);
  const cardTitles = useMemo(() => cardTitlesOf(state.blocks), [state.blocks]);
  const { openSource } = actions;
  const openCitedSource = useCallback(
    (citation: string) => openSource?.(citation, evidence.get(citation)),
    [openSource, evidence],
  );
  const waiting =
    (state.status === 'running' || state.status === 'idle') &&
    state.blocks.length === 0 &&
    state.hint === null;
  const view: BlockViewProps = {
    classNames: names,
    components:
      components === undefined ? defaultBlockComponents : { ...defaultBlockComponents, ...components },
    decide: actions.decide,
    deciding: actions.deciding ?? NO_DECISIONS,
    decisionErrors: actions.decisionErrors ?? NO_DECISION_ERRORS,
    openSource: openSource === undefined ? undefined : openCitedSource,
    cardTitles,
  };

  return (
    <article
      className={joinClassNames(names.message, className)}
      data-status={state.status}
      data-testid="assistant-message"
    >
      <div className={names.messageBlocks}>
        {state.blocks.map((block) => (
          <BlockView key={block.blockId} block={block} {...view} />
        ))}
      </div>
      {waiting && (
        <p className={names.waiting} role="status">
          <span className={names.waitingDots} aria-hidden="true" />
          {t('message.status.running')}
        </p>
      )}
      {state.hint && (
        <p className={names.hint} role="status" data-code={state.hint.code}>
          {hintKey ? t(hintKey) : state.hint.text}
        </p>
      )}
      <MessageFooter state={state} classNames={names} />
      {children}
    </article>
  );
}

interface BlockViewProps {
  classNames: RunstreamClassNames;
  components: BlockComponents;
  decide: MessageActions['decide'] | undefined;
  deciding: ReadonlySet<string>;
  decisionErrors: ReadonlyMap<string, string>;
  openSource: ((citation: string) => void) | undefined;
  cardTitles: ReadonlyMap<string, string>;
}

function BlockView({ block, ...view }: BlockViewProps & { block: Block }) {
  const { components, classNames } = view;
  switch (block.kind) {
    case 'reasoning':
      return <components.reasoning block={block} classNames={classNames} />;
    case 'answer':
      return <components.answer block={block} classNames={classNames} openSource={view.openSource} />;
    case 'error':
      return <components.error block={block} classNames={classNames} />;
    case 'tool':
      return (
        <components.tool
          block={block}
          classNames={classNames}
          title={toolTitle(block, view.cardTitles.get(block.toolCallId))}
        />
      );
    case 'confirm':
      return (
        <components.confirm
          block={block}
          classNames={classNames}
          decide={view.decide}
          deciding={view.deciding.has(block.toolCallId)}
          decisionError={view.decisionErrors.get(block.toolCallId)}
        />
      );
  }
}

/** How the run ended, when its blocks do not already say it. */
function MessageFooter({ state, classNames }: { state: MessageState; classNames: RunstreamClassNames }) {
  const { t } = useBlockText();
  switch (state.status) {
    case 'cancelled':
      return (
        <p className={classNames.notice} data-notice="cancelled">
          {state.finishReason === 'user_stop' ? t('message.stoppedByUser') : t('message.cancelled')}
        </p>
      );
    case 'interrupted':
      return (
        <p className={joinClassNames(classNames.notice, classNames.noticeWarning)} data-notice="interrupted">
          {t('message.interrupted')}
        </p>
      );
    case 'failed':
      if (state.blocks.some((block) => block.kind === 'error')) return null;
      return (
        <div className={classNames.noticeError} data-notice="failed">
          <ErrorNotice text={state.error?.message ?? ''} classNames={classNames} />
        </div>
      );
    default:
      return null;
  }
}
