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
});

export const ChatCompletionChunkSchema = z.object({
  choices: z.array(ChoiceSchema).nullish(),
  usage: z.object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish() }).nullish(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;
type ToolCallFragment = z.infer<typeof ToolCallFragmentSchema>;

interface ToolCallState {
  index: number;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
  started: boolean;
  ended: boolean;
}

/**
 * Turns the decoded JSON of each `data:` frame into `ChatStreamPart`s. One parser per attempt.
 *
 * Tool calls arrive as fragments keyed by `index`: the first carries `id` and `function.name`, the
 * rest carry pieces of `function.arguments`. A call starts once its name is known (argument pieces
 * seen before that are held and sent with the start), and all calls end, in index order and with
 * their complete argument text, when the choice reports a `finish_reason` or the stream says
 * `[DONE]`. The `finish` part waits for `[DONE]`, because the usage chunk comes after the
 * `finish_reason`.
 */
export class OpenAiChunkParser {
  readonly #calls = new Map<number, ToolCallState>();
  readonly #createId: () => string;
  #lastCallIndex: number | undefined;
  #finishReason: string | undefined;
  #usage: TokenUsage | undefined;

  constructor(options: { createToolCallId?: () => string } = {}) {
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
    if (chunk.usage) {
      // Some servers repeat usage on every chunk; the last one is the total.
      this.#usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
    // Only one completion is asked for (no `n`), so only choice 0 matters.
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (choice === undefined) return [];
    const parts: ChatStreamPart[] = [];
    const delta = choice.delta;
    if (delta) {
      const reasoning = reasoningOf(delta);
      if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
      if (delta.content) parts.push({ type: 'text-delta', text: delta.content });
      for (const fragment of delta.tool_calls ?? []) parts.push(...this.#toolCallFragment(fragment));
    }
    if (choice.finish_reason && this.#finishReason === undefined) {
      this.#finishReason = choice.finish_reason;
      parts.push(...this.#endCalls());
    }
    return parts;
  }

  /** The last parts: `tool-call-end` for calls still open, then `finish`. */
  done(): ChatStreamPart[] {
    const parts = this.#endCalls();
    const reason = mapFinishReason(this.#finishReason, this.#calls.size > 0);
    parts.push(
      this.#usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage: this.#usage },
    );
    return parts;
  }

  #toolCallFragment(fragment: ToolCallFragment): ChatStreamPart[] {
    const index = this.#indexOf(fragment);
    this.#lastCallIndex = index;
    let call = this.#calls.get(index);
    if (call === undefined) {
      call = { index, id: undefined, name: undefined, arguments: '', started: false, ended: false };
      this.#calls.set(index, call);
    }
    const rawArguments = fragment.function?.arguments;
    const piece =
      rawArguments === undefined || rawArguments === null
        ? ''
        : typeof rawArguments === 'string'
          ? rawArguments
          : JSON.stringify(rawArguments);
    if (call.ended) {
      if (piece === '') return [];
      throw new ModelError(
        'model_failed',
        `the provider sent more arguments for tool call ${index} after it ended`,
      );
    }
    // Some servers repeat `id` and `name` (or send "") on every fragment: the first non-empty wins.
    if (fragment.id && call.id === undefined) call.id = fragment.id;
    if (fragment.function?.name && call.name === undefined) call.name = fragment.function.name;
    const parts: ChatStreamPart[] = [];
    if (!call.started && call.name !== undefined) {
      call.started = true;
      call.id ??= this.#createId();
      parts.push({ type: 'tool-call-start', index, id: call.id, name: call.name });
      if (call.arguments !== '') {
        parts.push({ type: 'tool-call-delta', index, id: call.id, argumentsDelta: call.arguments });
      }
    }
    call.arguments += piece;
    if (call.started && piece !== '' && call.id !== undefined) {
      parts.push({ type: 'tool-call-delta', index, id: call.id, argumentsDelta: piece });
    }
    return parts;
  }

  /** The spec always sends `index`; without one, a new `id` is a new call and no `id` the last one. */
  #indexOf(fragment: ToolCallFragment): number {
    if (fragment.index !== undefined && fragment.index !== null) return fragment.index;
    if (fragment.id) {
      for (const call of this.#calls.values()) if (call.id === fragment.id) return call.index;
      return this.#calls.size === 0 ? 0 : Math.max(...this.#calls.keys()) + 1;
    }
    return this.#lastCallIndex ?? 0;
  }

  #endCalls(): ChatStreamPart[] {
    const open = [...this.#calls.values()].filter((call) => !call.ended).sort((a, b) => a.index - b.index);
    return open.map((call) => {
      if (!call.started || call.id === undefined || call.name === undefined) {
        throw new ModelError(
          'model_failed',
          `the provider never named the function of tool call ${call.index}`,
        );
      }
      call.ended = true;
      return {
        type: 'tool-call-end',
        index: call.index,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      };
    });
  }
}

/**
 * DeepSeek and DashScope (Qwen) send `reasoning_content`; OpenRouter and newer vLLM send `reasoning`.
 * A server that sends both for compatibility sends the same text twice, so one is enough.
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
