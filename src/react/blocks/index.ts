export { AnswerBlock, type AnswerBlockProps } from './answer-block.tsx';
export {
  AssistantMessage,
  type AssistantMessageProps,
  type BlockComponents,
  defaultBlockComponents,
} from './assistant-message.tsx';
export {
  type BlockStyleProps,
  defaultClassNames,
  joinClassNames,
  type RunstreamClassNames,
  resolveClassNames,
} from './class-names.ts';
export { ConfirmCard, type ConfirmCardProps } from './confirm-card.tsx';
export { ErrorBlock, type ErrorBlockProps, ErrorNotice, type ErrorNoticeProps } from './error-block.tsx';
export type { MessageActions, SourceEvidence } from './message-actions.ts';
export { ReasoningBlock, type ReasoningBlockProps } from './reasoning-block.tsx';
export { sourceEvidenceOf } from './source-evidence.ts';
export { ToolBlock, type ToolBlockProps } from './tool-block.tsx';
export { cardTitlesOf, humaniseToolName, toolTitle } from './tool-title.ts';
