import type { TokenUsage } from '../../protocol/index.ts';

/**
 * One chunk of the AI SDK's UI message stream (`ai@7`'s `uiMessageChunkSchema`): only the types and
 * fields that schema accepts, since a chunk it rejects breaks the client's stream.
 */
export type UiMessageChunk = { type: string } & Record<string, unknown>;

/**
 * What a message's `metadata` holds on the AI SDK face: the run (from the `start` chunk), so a client
 * can stop it explicitly, and, once a model call reported it, what the run cost so far. The SDK
 * merges each chunk's `messageMetadata` into the message, so the newest `usage` wins.
 */
export interface AiSdkMessageMetadata {
  runId?: string;
  conversationId?: string;
  usage?: AiSdkUsage;
}

/**
 * A usage as `ai` 7 names it (its `LanguageModelUsage`, what `streamText` reports as `totalUsage`), so
 * a client reads `message.metadata.usage` with the SDK's own type. A count the provider did not
 * report is left out (the SDK's type has it `undefined`), never 0.
 */
export interface AiSdkUsage {
  inputTokens: number;
  inputTokenDetails: { noCacheTokens?: number; cacheReadTokens?: number };
  outputTokens: number;
  outputTokenDetails: { textTokens?: number; reasoningTokens?: number };
  totalTokens: number;
}

export function aiSdkUsageOf(usage: TokenUsage): AiSdkUsage {
  const cached = usage.cachedInputTokens;
  const reasoning = usage.reasoningTokens;
  return {
    inputTokens: usage.inputTokens,
    inputTokenDetails:
      cached === undefined ? {} : { noCacheTokens: usage.inputTokens - cached, cacheReadTokens: cached },
    outputTokens: usage.outputTokens,
    outputTokenDetails:
      reasoning === undefined
        ? {}
        : { textTokens: usage.outputTokens - reasoning, reasoningTokens: reasoning },
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
}

/** `{ usage }` for a chunk's metadata, or nothing while no model call reported usage. */
function usageMetadata(usage: TokenUsage | null): { usage?: AiSdkUsage } {
  return usage === null ? {} : { usage: aiSdkUsageOf(usage) };
}

/** The `start` chunk: the message id, and the run (and its usage so far, if any) in the metadata. */
export function startChunk(
  messageId: string | null,
  runId: string | null,
  conversationId: string | null,
  usage: TokenUsage | null = null,
): UiMessageChunk {
  const metadata: AiSdkMessageMetadata = {
    ...(runId === null || conversationId === null ? {} : { runId, conversationId }),
    ...usageMetadata(usage),
  };
  return {
    type: 'start',
    ...(messageId === null ? {} : { messageId }),
    ...(Object.keys(metadata).length === 0 ? {} : { messageMetadata: metadata }),
  };
}

/** A `finish` chunk, with the run's usage so far in its metadata when a model call reported any. */
export function finishChunk(finishReason: string, usage: TokenUsage | null): UiMessageChunk {
  const metadata = usageMetadata(usage);
  return {
    type: 'finish',
    finishReason,
    ...(metadata.usage === undefined ? {} : { messageMetadata: metadata }),
  };
}

/** The `message-metadata` chunk after a model call that reported usage: the run's total so far. */
export function usageChunk(usage: TokenUsage): UiMessageChunk {
  return { type: 'message-metadata', messageMetadata: { usage: aiSdkUsageOf(usage) } };
}
