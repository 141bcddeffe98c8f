import { z } from 'zod';
import type { SseMessage } from '../protocol/index.ts';
import { describeEndpoint, isRecord, truncate } from '../shared/index.ts';
import { type ChatStreamPart, type FinishReason, ModelError, type TokenUsage } from './chat-model.ts';
import type { TurnStreamReader } from './model-stream-request.ts';

/**
 * Reads one attempt's Anthropic Messages stream for the shared transport.
 *
 * The event flow (https://platform.claude.com/docs/en/build-with-claude/streaming): `message_start`
 * (usage of the input), then per content block `content_block_start`, `content_block_delta`s and
 * `content_block_stop`, then `message_delta` (stop reason, cumulative usage) and `message_stop`;
 * `ping`s anywhere, `error` events after the 200, and new event types to be ignored gracefully.
 *
 * Thinking text streams as `reasoning-delta`s; the block's signature, sent as a `signature_delta`
 * "just before the content_block_stop", becomes one `reasoning-signature` when the block stops (an
 * empty signature, as Qwen sends, counts as none). A `redacted_thinking` block becomes
 * `reasoning-redacted`. Each `tool_use` block is a tool call numbered in the order calls start.
 */

const UsageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative().nullish(),
    output_tokens: z.number().int().nonnegative().nullish(),
    cache_read_input_tokens: z.number().int().nonnegative().nullish(),
    cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
    output_tokens_details: z.object({ thinking_tokens: z.number().int().nonnegative().nullish() }).nullish(),
  })
  .nullish();

const MessageStartSchema = z.object({ message: z.object({ usage: UsageSchema }).nullish() });

const ContentBlockStartSchema = z.object({
  index: z.number().int().nonnegative(),
  content_block: z.object({
    type: z.string(),
    text: z.string().nullish(),
    thinking: z.string().nullish(),
    signature: z.string().nullish(),
    data: z.string().nullish(),
    id: z.string().nullish(),
    name: z.string().nullish(),
    input: z.unknown().optional(),
  }),
});

const ContentBlockDeltaSchema = z.object({
  index: z.number().int().nonnegative(),
  delta: z.object({
    type: z.string(),
    text: z.string().nullish(),
    thinking: z.string().nullish(),
    signature: z.string().nullish(),
    partial_json: z.string().nullish(),
  }),
});

const ContentBlockStopSchema = z.object({ index: z.number().int().nonnegative() });

const MessageDeltaSchema = z.object({
  delta: z.object({ stop_reason: z.string().nullish() }).nullish(),
  usage: UsageSchema,
});

type Usage = z.infer<typeof UsageSchema>;

type OpenBlock =
  | { kind: 'text' | 'other' }
  | { kind: 'thinking'; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; index: number; id: string; name: string; arguments: string };

export class AnthropicTurnReader implements TurnStreamReader {
  readonly #endpoint: string;
  /** Open content blocks by the stream's `index`. */
  readonly #blocks = new Map<number, OpenBlock>();
  #toolCalls = 0;
  #complete = false;
  #stopReason: string | undefined;
  #inputTokens: number | undefined;
  #outputTokens: number | undefined;
  #cacheReadTokens: number | undefined;
  #cacheCreationTokens: number | undefined;
  #thinkingTokens: number | undefined;

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  get complete(): boolean {
    return this.#complete;
  }

  read(message: SseMessage): ChatStreamPart[] {
    const data = message.data.trim();
    if (data === '') return [];
    const event = parseEvent(data);
    // The data's own `type` is authoritative; the SSE event name stands in where a server omits it,
    // and a bare `{"error": …}` (an OpenAI-style gateway in front) is an error whatever it is named.
    const type = typeof event.type === 'string' ? event.type : 'error' in event ? 'error' : message.event;
    switch (type) {
      case 'message_start': {
        this.#addUsage(readAs(MessageStartSchema, event, type).message?.usage);
        return [];
      }
      case 'content_block_start':
        return this.#start(readAs(ContentBlockStartSchema, event, type));
      case 'content_block_delta':
        return this.#delta(readAs(ContentBlockDeltaSchema, event, type));
      case 'content_block_stop': {
        const { index } = readAs(ContentBlockStopSchema, event, type);
        const block = this.#blocks.get(index);
        this.#blocks.delete(index);
        return block === undefined ? [] : closingParts(block);
      }
      case 'message_delta': {
        const delta = readAs(MessageDeltaSchema, event, type);
        if (delta.delta?.stop_reason) this.#stopReason = delta.delta.stop_reason;
        this.#addUsage(delta.usage);
        return [];
      }
      case 'message_stop':
        this.#complete = true;
        return [];
      case 'error':
        throw anthropicStreamError(event.error ?? event);
      default:
        // `ping`, and event types added later: "handle unknown event types gracefully".
        return [];
    }
  }

  end(): ChatStreamPart[] {
    if (!this.#complete) {
      throw new ModelError(
        'model_stream_broken',
        `the stream from POST ${describeEndpoint(this.#endpoint)} ended before message_stop`,
        // Harmless to retry while nothing was delivered; the transport never retries after that.
        { retryable: true },
      );
    }
    // A block cut off by `max_tokens` may never get its `content_block_stop`; its call still ends,
    // with the arguments it has, so the runtime can tell the model they are incomplete.
    const parts = [...this.#blocks.entries()]
      .sort(([first], [second]) => first - second)
      .flatMap(([, block]) => closingParts(block));
    this.#blocks.clear();
    const reason = mapAnthropicStopReason(this.#stopReason, this.#toolCalls > 0);
    const usage = this.#usage();
    parts.push(usage === undefined ? { type: 'finish', reason } : { type: 'finish', reason, usage });
    return parts;
  }

  #start(event: z.infer<typeof ContentBlockStartSchema>): ChatStreamPart[] {
    if (this.#blocks.has(event.index)) {
      throw new ModelError('model_failed', `the provider started content block ${event.index} twice`);
    }
    const block = event.content_block;
    switch (block.type) {
      case 'text':
        this.#blocks.set(event.index, { kind: 'text' });
        // Claude starts with "", but a compatible server may put the first text here.
        return block.text ? [{ type: 'text-delta', text: block.text }] : [];
      case 'thinking':
        this.#blocks.set(event.index, { kind: 'thinking', signature: block.signature ?? '' });
        return block.thinking ? [{ type: 'reasoning-delta', text: block.thinking }] : [];
      case 'redacted_thinking':
        this.#blocks.set(event.index, { kind: 'redacted', data: block.data ?? '' });
        return [];
      case 'tool_use': {
        if (!block.id || !block.name) {
          throw new ModelError(
            'model_failed',
            `the provider started a tool_use block without an id or a name: ${truncate(JSON.stringify(block))}`,
          );
        }
        const index = this.#toolCalls++;
        // Claude starts with `input: {}` and streams the JSON; a server that sends the whole input
        // at once has it here.
        const initial =
          isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
        this.#blocks.set(event.index, {
          kind: 'tool',
          index,
          id: block.id,
          name: block.name,
          arguments: initial,
        });
        const parts: ChatStreamPart[] = [{ type: 'tool-call-start', index, id: block.id, name: block.name }];
        if (initial !== '')
          parts.push({ type: 'tool-call-delta', index, id: block.id, argumentsDelta: initial });
        return parts;
      }
      default:
        // Server tools (`server_tool_use`, `web_search_tool_result` …) run at the provider's side.
        this.#blocks.set(event.index, { kind: 'other' });
        return [];
    }
  }

  #delta(event: z.infer<typeof ContentBlockDeltaSchema>): ChatStreamPart[] {
    const delta = event.delta;
    let block = this.#blocks.get(event.index);
    if (block === undefined && delta.type !== 'input_json_delta') {
      // A compatible server that skips `content_block_start`: the delta says what the block is.
      block =
        delta.type === 'text_delta'
          ? { kind: 'text' }
          : delta.type === 'thinking_delta' || delta.type === 'signature_delta'
            ? { kind: 'thinking', signature: '' }
            : { kind: 'other' };
      this.#blocks.set(event.index, block);
    }
    // A server tool's input (`server_tool_use`) streams as `input_json_delta` too; it is not ours.
    if (block?.kind === 'other') return [];
    switch (delta.type) {
      case 'text_delta':
        return delta.text ? [{ type: 'text-delta', text: delta.text }] : [];
      case 'thinking_delta':
        return delta.thinking ? [{ type: 'reasoning-delta', text: delta.thinking }] : [];
      case 'signature_delta':
        if (block?.kind === 'thinking') block.signature += delta.signature ?? '';
        return [];
      case 'input_json_delta': {
        if (block?.kind !== 'tool') {
          throw new ModelError(
            'model_failed',
            `the provider sent tool input for content block ${event.index}, which is not a tool_use block`,
          );
        }
        const piece = delta.partial_json ?? '';
        if (piece === '') return [];
        block.arguments += piece;
        return [{ type: 'tool-call-delta', index: block.index, id: block.id, argumentsDelta: piece }];
      }
      default:
        // `citations_delta` and later delta types carry nothing this interface has a place for.
        return [];
    }
  }

  /** Counts are cumulative: the latest report of each wins (`message_delta` may repeat the input). */
  #addUsage(usage: Usage): void {
    if (!usage) return;
    this.#inputTokens = usage.input_tokens ?? this.#inputTokens;
    this.#outputTokens = usage.output_tokens ?? this.#outputTokens;
    this.#cacheReadTokens = usage.cache_read_input_tokens ?? this.#cacheReadTokens;
    this.#cacheCreationTokens = usage.cache_creation_input_tokens ?? this.#cacheCreationTokens;
    this.#thinkingTokens = usage.output_tokens_details?.thinking_tokens ?? this.#thinkingTokens;
  }

  /**
   * Anthropic's `input_tokens` leaves out the tokens read from and written to the prompt cache, which
   * `inputTokens` counts; `thinking_tokens` is the part of `output_tokens` spent reasoning.
   */
  #usage(): TokenUsage | undefined {
    // Both totals or none: a count the server never reported must not become a zero.
    if (this.#inputTokens === undefined || this.#outputTokens === undefined) return undefined;
    const usage: TokenUsage = {
      inputTokens: this.#inputTokens + (this.#cacheReadTokens ?? 0) + (this.#cacheCreationTokens ?? 0),
      outputTokens: this.#outputTokens,
    };
    if (this.#thinkingTokens !== undefined) usage.reasoningTokens = this.#thinkingTokens;
    if (this.#cacheReadTokens !== undefined) usage.cachedInputTokens = this.#cacheReadTokens;
    return usage;
  }
}

function closingParts(block: OpenBlock): ChatStreamPart[] {
  switch (block.kind) {
    case 'thinking':
      return block.signature === '' ? [] : [{ type: 'reasoning-signature', signature: block.signature }];
    case 'redacted':
      return block.data === '' ? [] : [{ type: 'reasoning-redacted', data: block.data }];
    case 'tool':
      return [
        {
          type: 'tool-call-end',
          index: block.index,
          id: block.id,
          name: block.name,
          arguments: block.arguments,
        },
      ];
    default:
      return [];
  }
}

/**
 * Stop reasons (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons):
 * `end_turn`, `stop_sequence`, `tool_use`, `max_tokens`, `model_context_window_exceeded`, `refusal`,
 * `pause_turn` (a server tool's loop paused: nothing this runtime can continue). A turn that made
 * calls is `tool_calls` whatever a compatible server said, as the runtime decides by the reason.
 */
export function mapAnthropicStopReason(raw: string | undefined, hadToolCalls: boolean): FinishReason {
  switch (raw) {
    case undefined:
    case 'end_turn':
    case 'stop_sequence':
      return hadToolCalls ? 'tool_calls' : 'stop';
    case 'tool_use':
      return hadToolCalls ? 'tool_calls' : 'other';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * An `error` event after the 200 (https://platform.claude.com/docs/en/api/errors): its `type` is
 * what the HTTP status would have said, e.g. `overloaded_error` for a 529, so it decides the code
 * and whether the same request may succeed later.
 */
export function anthropicStreamError(error: unknown): ModelError {
  const details = isRecord(error) ? error : {};
  const kind = typeof details.type === 'string' ? details.type : '';
  const text = typeof details.message === 'string' ? details.message : truncate(JSON.stringify(error));
  const message = `the provider reported an error in the stream: ${kind === '' ? text : `${kind}: ${text}`}`;
  switch (kind) {
    case 'overloaded_error':
    case 'api_error':
    case 'timeout_error':
      return new ModelError('model_unavailable', message, { retryable: true });
    case 'rate_limit_error':
      return new ModelError('model_rate_limited', message, { retryable: true });
    case 'authentication_error':
    case 'permission_error':
      return new ModelError('model_auth', message);
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
      return new ModelError('model_bad_request', message);
    default:
      return new ModelError('model_failed', message);
  }
}

function parseEvent(data: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (error) {
    throw new ModelError('model_failed', `the provider sent an event that is not JSON: ${truncate(data)}`, {
      cause: error,
    });
  }
  if (!isRecord(parsed)) {
    throw new ModelError(
      'model_failed',
      `the provider sent an event that is not an object: ${truncate(data)}`,
    );
  }
  return parsed;
}

function readAs<Schema extends z.ZodType>(schema: Schema, event: unknown, type: string): z.infer<Schema> {
  const parsed = schema.safeParse(event);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ModelError(
    'model_failed',
    `the provider sent a ${type} event this adapter cannot read (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}): ${truncate(JSON.stringify(event))}`,
  );
}
