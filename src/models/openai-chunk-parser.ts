import { z } from 'zod';
import { errorObjectMessage, isRecord, truncate } from '../shared/index.ts';
import { type ChatStreamPart, type FinishReason, ModelError, type TokenUsage } from './chat-model.ts';
import { classifyStatus } from './http-helpers.ts';

/**
 * The parts of a `chat.completion.chunk` this adapter reads. Every field is optional and nullable:
 * compatible servers differ in what they leave out and what they send as `null`, and unknown fields
 * (`logprobs`, `system_fingerprint`, OpenRouter's `reasoning_details` …) are dropped.
 */
const ToolCallFragmentSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z
    .object({
      name: z.string().nullish(),
      // A string everywhere that follows the spec; an object from a few local servers.
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
    })
    .nullish(),
});

const count = z.number().nonnegative().nullish();

/**
 * Token counts as each provider reports them: OpenAI (and DashScope, OpenRouter) put details in
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`; DeepSeek
 * and SiliconFlow report `prompt_cache_hit_tokens`; Moonshot a top-level `cached_tokens`.
 */
const UsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count }).nullish(),
  prompt_cache_hit_tokens: count,
  cached_tokens: count,
});

const ChoiceSchema = z.object({
  index: z.number().int().nullish(),
  delta: z
    .object({
      content: z.string().nullish(),
      reasoning_content: z.unknown().optional(),
      reasoning: z.unknown().optional(),
      tool_calls: z.array(ToolCallFragmentSchema).nullish(),
    })
    .nullish(),
  finish_reason: z.string().nullish(),
  // Moonshot's older models report usage inside the finishing choice.
  usage: UsageSchema.nullish(),
});

export const ChatCompletionChunkSchema = z.object({
  choices: z.array(ChoiceSchema).nullish(),
  usage: UsageSchema.nullish(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;
type ToolCallFragment = z.infer<typeof ToolCallFragmentSchema>;
type Usage = z.infer<typeof UsageSchema>;

interface ToolCallState {
  /** This adapter's numbering: the order in which the turn's calls appeared. */
  index: number;
  /** The id the provider gave, once it gave one; fragments are matched by it. */
  providerId: string | undefined;
  /** The id sent on the parts: the provider's, or one made up when it had none at the start. */
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  started: boolean;
}

export interface OpenAiChunkParserOptions {
  /** Ids for calls a server sends without one. */
  createToolCallId?: () => string;
}

/**
 * Turns the decoded JSON of each `data:` frame into `ChatStreamPart`s. One parser per attempt.
 *
 * Tool calls arrive as fragments. Servers that follow the spec key them by `index`, with `id` and the
 * function's name on the first; others do not: Ollama sends every call of a turn at `index: 0`, each
 * with its own `id`; some leave `index` out; some send a whole call in one fragment, arguments in
 * the finish chunk, empty or `null` argument pieces, or `id` and name again on every fragment. So a
 * fragment belongs to the call with its `id` when it has one (a new `id` is a new call, even at an
 * index already in use), else to the latest call at its `index`, else to the latest call of all.
 *
 * A call starts once its name is known (argument pieces seen before that are held and sent with
 * the start). All calls end, in the order they appeared and with their complete argument text, at
 * `[DONE]` or when the stream ends after a `finish_reason`: never earlier, since a server may still
 * send argument text after the finish reason, and the usage chunk comes after it anyway. Arguments
 * that are not valid JSON pass through as written; the runtime shows the model its mistake.
 */
export class OpenAiChunkParser {
  readonly #calls: ToolCallState[] = [];
  /** The latest call seen at each of the provider's indexes. */
  readonly #callAtProviderIndex = new Map<number, ToolCallState>();
  readonly #createId: () => string;
  #lastCall: ToolCallState | undefined;
  #finishReason: string | undefined;
  #usage: TokenUsage | undefined;

  constructor(options: OpenAiChunkParserOptions = {}) {
    this.#createId = options.createToolCallId ?? (() => `call_${crypto.randomUUID().replaceAll('-', '')}`);
  }

  /** Whether a `finish_reason` arrived: the turn is complete even if `[DONE]` never does. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** The parts in one frame's JSON. Throws `ModelError` for an error frame or an unreadable chunk. */
  push(data: unknown): ChatStreamPart[] {
    if (isRecord(data) && data.error !== undefined && data.error !== null) throw errorFromFrame(data.error);
    const parsed = ChatCompletionChunkSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ModelError(
        'model_failed',
        `the provider sent a chunk this adapter cannot read (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}): ${truncate(JSON.stringify(data))}`,
      );
    }
    const chunk = parsed.data;
    // Only one completion is asked for (no `n`), so only choice 0 matters.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    // Some servers repeat usage on every chunk; the last one is the total.
    this.#usage = toTokenUsage(chunk.usage ?? choice?.usage) ?? this.#usage;
    if (choice === undefined) return [];
    const parts: ChatStreamPart[] = [];
    const delta = choice.delta;
    if (delta) {
      const reasoning = reasoningOf(delta);
      if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
      if (delta.content) parts.push({ type: 'text-delta', text: delta.content });
      for (const fragment of delta.tool_calls ?? []) parts.push(...this.#toolCallFragment(fragment));
    }
    if (choice.finish_reason) this.#finishReason ??= choice.finish_reason;
    return parts;
  }

  /** The last parts: `tool-call-end` for every call, in the order they appeared, then `finish`. */
  done(): ChatStreamPart[] {
    const parts: ChatStreamPart[] = this.#calls.map((call) => {
      if (!call.started || call.id === undefined || call.name === undefined) {
        throw new ModelError(
          'model_failed',
          `the provider never named the function of tool call ${call.index}${call.providerId ? ` (${call.providerId})` : ''}`,
        );
      }
      return {
        type: 'tool-call-end',
        index: call.index,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      };
    });
    const reason = mapFinishReason(this.#finishReason, this.#calls.length > 0);
    parts.push(
      this.#usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage: this.#usage },
    );
    return parts;
  }

  #toolCallFragment(fragment: ToolCallFragment): ChatStreamPart[] {
    const call = this.#callFor(fragment);
    this.#lastCall = call;
    const rawArguments = fragment.function?.arguments;
    const piece =
      rawArguments === undefined || rawArguments === null
        ? ''
        : typeof rawArguments === 'string'
          ? rawArguments
          : JSON.stringify(rawArguments);
    // Some servers repeat `id` and `name` (or send "") on every fragment: the first non-empty wins.
    if (fragment.id && call.providerId === undefined) call.providerId = fragment.id;
    if (fragment.function?.name && call.name === undefined) call.name = fragment.function.name;
    const parts: ChatStreamPart[] = [];
    if (!call.started && call.name !== undefined) {
      call.started = true;
      call.id = call.providerId ?? this.#createId();
      parts.push({ type: 'tool-call-start', index: call.index, id: call.id, name: call.name });
      if (call.arguments !== '') {
        parts.push({
          type: 'tool-call-delta',
          index: call.index,
          id: call.id,
          argumentsDelta: call.arguments,
        });
      }
    }
    call.arguments += piece;
    if (call.started && piece !== '' && call.id !== undefined) {
      parts.push({ type: 'tool-call-delta', index: call.index, id: call.id, argumentsDelta: piece });
    }
    return parts;
  }

  /** The call a fragment belongs to, opening a new one where it starts one. */
  #callFor(fragment: ToolCallFragment): ToolCallState {
    const providerIndex = fragment.index ?? undefined;
    const atIndex = providerIndex === undefined ? undefined : this.#callAtProviderIndex.get(providerIndex);
    if (fragment.id) {
      const known = this.#calls.find((call) => call.providerId === fragment.id);
      if (known !== undefined) return known;
      // The call at this index has no id yet (its name or arguments came first): this is its id.
      if (atIndex !== undefined && atIndex.providerId === undefined) return atIndex;
      // A new id is a new call, whether at a new index, at one in use (Ollama), or without any.
      return this.#openCall(providerIndex);
    }
    if (atIndex !== undefined) return atIndex;
    if (providerIndex !== undefined) return this.#openCall(providerIndex);
    return this.#lastCall ?? this.#openCall(undefined);
  }

  #openCall(providerIndex: number | undefined): ToolCallState {
    const call: ToolCallState = {
      index: this.#calls.length,
      providerId: undefined,
      id: undefined,
      name: undefined,
      arguments: '',
      started: false,
    };
    this.#calls.push(call);
    if (providerIndex !== undefined) this.#callAtProviderIndex.set(providerIndex, call);
    return call;
  }
}

/**
 * The usage a provider reported, details only where it reported them: absent means unknown, never
 * zero. Both totals are needed for a usage worth recording.
 */
function toTokenUsage(usage: Usage | null | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const inputTokens = usage.prompt_tokens;
  const outputTokens = usage.completion_tokens;
  if (typeof inputTokens !== 'number' || typeof outputTokens !== 'number') return undefined;
  const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens;
  const cachedInputTokens =
    usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? usage.cached_tokens;
  return {
    inputTokens,
    outputTokens,
    ...(typeof reasoningTokens === 'number' ? { reasoningTokens } : {}),
    ...(typeof cachedInputTokens === 'number' ? { cachedInputTokens } : {}),
  };
}

/**
 * DeepSeek, DashScope (Qwen), Moonshot and llama.cpp send `reasoning_content`; OpenRouter, vLLM and
 * Ollama send `reasoning`. A server that sends both for compatibility sends the same text twice, so
 * one is enough.
 */
function reasoningOf(delta: { reasoning_content?: unknown; reasoning?: unknown }): string {
  if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
    return delta.reasoning_content;
  }
  return typeof delta.reasoning === 'string' ? delta.reasoning : '';
}

/**
 * Some servers (vLLM, Ollama) report `stop` for a turn that called tools; the runtime decides by the
 * reason, so a turn with tool calls is `tool_calls`. No reason at all (a bare `[DONE]`) reads the same.
 */
export function mapFinishReason(raw: string | undefined, hadToolCalls: boolean): FinishReason {
  switch (raw) {
    case undefined:
    case 'stop':
    case 'eos':
    case 'end_turn':
      return hadToolCalls ? 'tool_calls' : 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * An `{"error": {...}}` frame: providers (OpenRouter, DashScope, vLLM) report failures that happen
 * after the 200 this way. The status it names, or else its type, says whether a retry may help.
 */
function errorFromFrame(error: unknown): ModelError {
  const message = `the provider reported an error in the stream: ${errorObjectMessage({ error }) ?? truncate(JSON.stringify(error))}`;
  const details = isRecord(error) ? error : {};
  const status = [details.status, details.code].map(Number).find((value) => value >= 400 && value <= 599);
  if (status !== undefined) {
    const { code, retryable } = classifyStatus(status);
    return new ModelError(code, message, { status, retryable });
  }
  const kind = [details.type, details.code].filter((value) => typeof value === 'string').join(' ');
  if (/rate_limit/.test(kind)) return new ModelError('model_rate_limited', message, { retryable: true });
  if (/auth|permission/.test(kind)) return new ModelError('model_auth', message);
  if (/invalid_request/.test(kind)) return new ModelError('model_bad_request', message);
  if (/server_error|overloaded|unavailable|api_error/.test(kind)) {
    return new ModelError('model_unavailable', message, { retryable: true });
  }
  return new ModelError('model_failed', message);
}
