import type { StepFinishReason, TokenUsage } from '../protocol/index.ts';

/**
 * The small interface the runtime talks to: one streamed model turn at a time. Providers (an
 * OpenAI-compatible endpoint, an example's offline demo model, the built-in offline model, a scripted test model) implement it.
 */

export interface ToolCallRequest {
  /** The provider's call id (`call_…`); tool results refer to it. */
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, not yet parsed or validated. */
  arguments: string;
}

/**
 * One piece of a model turn's reasoning in the form a provider needs back. Anthropic signs each
 * thinking block and refuses a tool loop whose earlier thinking comes back altered or unsigned; it
 * may also send thinking it encrypted (`redacted`), which must be returned as it came.
 */
export type ReasoningPart =
  | { type: 'text'; text: string; signature?: string }
  | { type: 'redacted'; data: string };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      /**
       * The turn's reasoning text, kept so it can be sent back where a provider requires it
       * (DeepSeek's and Kimi's thinking modes in a tool loop); each adapter decides per provider.
       */
      reasoning?: string;
      /** Present when the provider signed or encrypted its reasoning: returned exactly as it came. */
      reasoningParts?: ReasoningPart[];
      toolCalls?: ToolCallRequest[];
    }
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

/**
 * What one model turn cost (the protocol's shape, so it goes on the wire unchanged). Adapters of
 * providers that count otherwise convert: Anthropic's `input_tokens` leaves cache reads out, so its
 * adapter adds them back to `inputTokens`.
 */
export type { TokenUsage };

/** Why a turn ended; the protocol's `step.finished` carries it unchanged. */
export type FinishReason = StepFinishReason;

/**
 * The parts of one streamed turn, in order. Several tool calls may interleave by `index` (parallel
 * calls; the index is the adapter's own numbering of the turn's calls, not the provider's); each
 * starts with `tool-call-start`, may get `tool-call-delta`s, and ends with `tool-call-end` carrying
 * the complete argument text. `finish` is always the last part.
 *
 * `reasoning-signature` closes the reasoning streamed since the last one (or since the turn began)
 * as one signed piece; `reasoning-redacted` is a piece of reasoning the provider sent encrypted.
 * Providers that neither sign nor encrypt (every OpenAI-compatible one) send neither.
 */
export type ChatStreamPart =
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-signature'; signature: string }
  | { type: 'reasoning-redacted'; data: string }
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; id: string; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number; id: string; name: string; arguments: string }
  | { type: 'finish'; reason: FinishReason; usage?: TokenUsage };

export interface ChatModel {
  /** Names the model in logs and run metadata, e.g. `openai:qwen-plus` or `offline`. */
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
