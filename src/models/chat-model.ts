/**
 * The small interface the runtime talks to: one streamed model turn at a time. Providers (an
 * OpenAI-compatible endpoint, the offline NovaShop demo model, a scripted test model) implement it.
 */

export interface ToolCallRequest {
  /** The provider's call id (`call_…`); tool results refer to it. */
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, not yet parsed or validated. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; reasoning?: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool as the model sees it: a name, what it is for, and a JSON Schema for its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** Absent or empty: the model must answer in text (the summary turn after max iterations). */
  tools?: readonly ToolDefinition[];
  signal?: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/**
 * The parts of one streamed turn, in order. Several tool calls may interleave by `index` (parallel
 * calls); each starts with `tool-call-start`, may get `tool-call-delta`s, and ends with
 * `tool-call-end` carrying the complete argument text. `finish` is always the last part.
 */
export type ChatStreamPart =
  | { type: 'reasoning-delta'; text: string }
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; id: string; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number; id: string; name: string; arguments: string }
  | { type: 'finish'; reason: FinishReason; usage?: TokenUsage };

export interface ChatModel {
  /** Names the model in logs and run metadata, e.g. `openai:qwen-plus` or `novashop-demo`. */
  readonly name: string;
  /** Stream one turn. Throws `ModelError`; honours `request.signal`. */
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}

export type ModelErrorCode =
  | 'model_auth'
  | 'model_rate_limited'
  | 'model_unavailable'
  | 'model_bad_request'
  | 'model_stream_broken'
  | 'model_failed';

/** A typed model failure. `retryable` says whether the same request may succeed later. */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  readonly code: ModelErrorCode;
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(
    code: ModelErrorCode,
    message: string,
    options: { status?: number; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}
