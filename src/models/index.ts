/**
 * Models: the `ChatModel` interface the runtime streams turns from, an adapter for any
 * OpenAI-compatible Chat Completions server with the quirks of each known provider, one for the
 * Anthropic Messages protocol, the HTTP streaming transport both share, and a scripted model for tests.
 */
export * from './anthropic-messages-model.ts';
export {
  type AnthropicContentBlock,
  type AnthropicMessage,
  type AnthropicRequestBodyOptions,
  type AnthropicThinking,
  type AnthropicTool,
  buildAnthropicRequestBody,
  toAnthropicMessages,
  toAnthropicTool,
} from './anthropic-request-body.ts';
export {
  AnthropicTurnReader,
  anthropicStreamError,
  mapAnthropicStopReason,
} from './anthropic-turn-reader.ts';
export * from './chat-model.ts';
export * from './create-chat-model-from-env.ts';
export * from './model-stream-request.ts';
export * from './offline/index.ts';
export * from './openai-chat-model.ts';
export {
  type ChatCompletionChunk,
  ChatCompletionChunkSchema,
  OpenAiChunkParser,
  type OpenAiChunkParserOptions,
} from './openai-chunk-parser.ts';
export {
  buildRequestBody,
  type RequestBodyOptions,
  toOpenAiMessage,
  toOpenAiMessages,
  toOpenAiTool,
} from './openai-request-body.ts';
export { OpenAiTurnReader } from './openai-turn-reader.ts';
export * from './provider-profile.ts';
export { PROVIDER_PROFILES } from './provider-profiles.ts';
export * from './scripted-chat-model.ts';
export * from './scripted-turns.ts';
export * from './scripted-turns-file.ts';
