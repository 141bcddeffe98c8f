/**
 * The input service every face calls (issue #30): a request's thread or conversation, the run that
 * waits on it, the answers it carries and the turn it starts, the same for every dialect.
 */
export * from './answer-refusals.ts';
export * from './dialect-conversation.ts';
export * from './run-input-service.ts';
