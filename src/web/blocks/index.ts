/**
 * The blocks of an assistant message. The page renders `AssistantMessage` and hands it the
 * `MessageActions` it needs; the single block components are exported for pages that need them.
 */

export { citationsOf, parseCitation } from '../markdown/link-citations.ts';
export { renderMarkdown } from '../markdown/render-markdown.ts';
export { RunTimeline } from '../timeline/index.ts';
export { AnswerBlock, type AnswerBlockProps } from './answer-block.tsx';
export { AssistantMessage, type AssistantMessageProps } from './assistant-message.tsx';
export { ConfirmCard, type ConfirmCardProps } from './confirm-card.tsx';
export { ErrorBlock, ErrorNotice } from './error-block.tsx';
export type { MessageActions, SourceEvidence } from './message-actions.ts';
export { ReasoningBlock } from './reasoning-block.tsx';
export { sourceEvidenceOf } from './source-evidence.ts';
export { ToolBlock } from './tool-block.tsx';
