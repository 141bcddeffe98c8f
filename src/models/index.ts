/**
 * Models: the `ChatModel` interface the runtime streams turns from, an adapter for any
 * OpenAI-compatible Chat Completions server, and a scripted model for tests.
 */
export * from './chat-model.ts';
export * from './create-chat-model-from-env.ts';
export * from './openai-chat-model.ts';
export {
  type ChatCompletionChunk,
  ChatCompletionChunkSchema,
  OpenAiChunkParser,
} from './openai-chunk-parser.ts';
export {
  buildRequestBody,
  type ReasoningField,
  toOpenAiMessage,
  toOpenAiTool,
} from './openai-request-body.ts';
export * from './scripted-chat-model.ts';
export * from './scripted-turns.ts';
