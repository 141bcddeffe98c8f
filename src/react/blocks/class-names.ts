/**
 * The class name of every element the blocks render, by part. `styles.css` (shipped as
 * `runstream/react/styles.css`) styles these defaults; a `classNames` prop replaces any of them (a
 * utility-class page gives its own), and `className` adds to a block's root element.
 */
export const defaultClassNames = {
  // The message around the blocks.
  message: 'assistant-message',
  messageBlocks: 'assistant-blocks',
  waiting: 'assistant-waiting',
  waitingDots: 'assistant-waiting-dots',
  hint: 'assistant-hint',
  notice: 'message-notice',
  noticeWarning: 'message-notice-warning',
  noticeError: 'message-notice-error',
  // Every block's root, plus its kind's.
  block: 'block',
  reasoningBlock: 'block-reasoning',
  answerBlock: 'block-answer',
  toolBlock: 'block-tool',
  confirmBlock: 'block-confirm',
  errorBlock: 'block-error',
  // Reasoning.
  reasoning: 'reasoning',
  reasoningSummary: 'reasoning-summary',
  reasoningLabel: 'reasoning-label',
  reasoningText: 'reasoning-text',
  // Answer.
  markdown: 'markdown',
  answerMarker: 'answer-marker',
  // Tool call.
  toolDetails: 'tool-details',
  toolRow: 'tool-row',
  toolSpinner: 'tool-spinner',
  toolHeading: 'tool-heading',
  toolTitle: 'tool-title',
  toolMeta: 'tool-meta',
  toolStatus: 'tool-status',
  toolDuration: 'tool-duration',
  toolBody: 'tool-body',
  toolSection: 'tool-section',
  toolSectionError: 'tool-section-error',
  toolSectionTitle: 'tool-section-title',
  toolName: 'tool-name',
  toolCode: 'tool-code',
  toolError: 'tool-error',
  // Confirmation card.
  confirmCard: 'confirm-card',
  confirmTitle: 'confirm-title',
  confirmDescription: 'confirm-description',
  confirmDetails: 'confirm-details',
  confirmDetail: 'confirm-detail',
  confirmActions: 'confirm-actions',
  confirmButton: 'confirm-button',
  confirmApprove: 'confirm-approve',
  confirmReject: 'confirm-reject',
  confirmDecision: 'confirm-decision',
  confirmError: 'confirm-error',
  // Error notice.
  errorNotice: 'error-notice',
  errorNoticeIcon: 'error-notice-icon',
  errorNoticeBody: 'error-notice-body',
  errorNoticeTitle: 'error-notice-title',
  errorNoticeText: 'error-notice-text',
};

export type RunstreamClassNames = typeof defaultClassNames;

/** The class names a component renders with: the defaults, with the caller's over them. */
export function resolveClassNames(overrides: Partial<RunstreamClassNames> | undefined): RunstreamClassNames {
  return overrides === undefined ? defaultClassNames : { ...defaultClassNames, ...overrides };
}

/** Class names joined with spaces, empty ones left out (an override may be `''`). */
export function joinClassNames(...names: (string | false | null | undefined)[]): string {
  return names.filter((name) => typeof name === 'string' && name !== '').join(' ');
}

/** What every block component accepts for its styling. */
export interface BlockStyleProps {
  /** Added to the block's root element. */
  className?: string;
  /** Replaces the class name of any part (see `defaultClassNames`). */
  classNames?: Partial<RunstreamClassNames>;
}
