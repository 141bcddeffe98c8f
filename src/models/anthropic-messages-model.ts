import { isHttpUrl } from '../shared/index.ts';
import { type AnthropicThinking, buildAnthropicRequestBody } from './anthropic-request-body.ts';
import { AnthropicTurnReader } from './anthropic-turn-reader.ts';
import type { ChatModel, ChatRequest, ChatStreamPart } from './chat-model.ts';
import {
  type ModelRequestPolicyOptions,
  type ModelStreamRequestOptions,
  resolveRequestPolicy,
  streamModelRequest,
} from './model-stream-request.ts';

/**
 * The retry and timeout options are the shared ones (`ModelRequestPolicyOptions`). Anthropic sends
 * `ping`s while a turn streams, but thinking may still pause it ("possible delays between streaming
 * events"), which the idle timeout's default allows for.
 */
export interface AnthropicMessagesModelOptions extends ModelRequestPolicyOptions {
  /**
   * The API root that `/v1/messages` is appended to, as `ANTHROPIC_BASE_URL` is for Anthropic's SDKs:
   * `https://api.anthropic.com` (default), `https://api.deepseek.com/anthropic`,
   * `https://api.moonshot.ai/anthropic`, `https://dashscope.aliyuncs.com/apps/anthropic`. A root that
   * already ends in `/v1` gets only `/messages`.
   */
  baseUrl?: string;
  /** Sent as `x-api-key` (or `Authorization: Bearer`, see `authScheme`); omit it for keyless servers. */
  apiKey?: string;
  /** e.g. `claude-sonnet-4-5`, `deepseek-v4-pro`, `kimi-k2.5`, `qwen-plus`. */
  model: string;
  /**
   * The answer's room in tokens, sent as `max_tokens` (which the API requires). With
   * `thinking.type: 'enabled'` the thinking budget is added on top. Default 4 096, which every Claude
   * model accepts.
   */
  maxOutputTokens?: number;
  /** Absent: the request says nothing about thinking and the model's default applies. */
  thinking?: AnthropicThinking;
  /** Sent as `output_config.effort` (`low`, `medium`, `high`; DeepSeek also takes `max`). */
  effort?: string;
  /**
   * Send reasoning without a signature back as `thinking` blocks, and an empty one on tool-call turns
   * that had none. Off by default (Claude refuses unsigned thinking); on for DeepSeek, Kimi and Qwen.
   */
  sendUnsignedReasoning?: boolean;
  /** `x-api-key` (default, Anthropic's) or `bearer` for gateways that want `Authorization: Bearer`. */
  authScheme?: 'x-api-key' | 'bearer';
  /** More headers, e.g. `{ 'anthropic-beta': 'interleaved-thinking-2025-05-14' }`. */
  headers?: Readonly<Record<string, string>>;
  /** Provider-specific body fields (`metadata`, `top_p` …); they cannot replace the adapter's own. */
  extraBody?: Readonly<Record<string, unknown>>;
  /** Added to a 401/403's message, e.g. "check ANTHROPIC_API_KEY". */
  authHint?: string;
}

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The API version every request names (https://platform.claude.com/docs/en/api/versioning). */
export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** "The minimum budget is 1,024 tokens" (extended thinking, Working with thinking budgets). */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;

/**
 * A `ChatModel` over the Anthropic Messages API (`POST {baseUrl}/v1/messages`, `stream: true`), which
 * Claude serves and DeepSeek, Moonshot (Kimi) and Alibaba's DashScope (Qwen) serve too.
 *
 * Signed and redacted thinking goes back unchanged in later requests, so tool loops keep their
 * reasoning; retries, timeouts and the redaction of the key are the shared transport's
 * (`streamModelRequest`): failures before the first part (429 with `retry-after`, 529 or an in-stream
 * `overloaded_error`, 5xx, a cut stream) are retried, nothing after it.
 */
export class AnthropicMessagesModel implements ChatModel {
  readonly name: string;
  readonly #transport: ModelStreamRequestOptions;
  readonly #bodyOptions: Parameters<typeof buildAnthropicRequestBody>[1];

  constructor(options: AnthropicMessagesModelOptions) {
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    const root = (options.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, '');
    const url = root.endsWith('/v1') ? `${root}/messages` : `${root}/v1/messages`;
    if (!isHttpUrl(url)) {
      throw new RangeError(`baseUrl is not an http(s) URL: ${JSON.stringify(options.baseUrl)}`);
    }
    const maxOutputTokens = options.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_OUTPUT_TOKENS;
    assertPositiveInteger('maxOutputTokens', maxOutputTokens);
    if (options.thinking?.type === 'enabled') {
      const budget = options.thinking.budgetTokens;
      if (!Number.isInteger(budget) || budget < ANTHROPIC_MIN_THINKING_BUDGET) {
        throw new RangeError(
          `thinking.budgetTokens must be an integer of at least ${ANTHROPIC_MIN_THINKING_BUDGET}, got ${budget}`,
        );
      }
    }
    if (options.effort !== undefined && options.effort.trim() === '') {
      throw new RangeError('effort must not be empty');
    }
    const policy = resolveRequestPolicy(options);

    this.name = `anthropic:${options.model}`;
    const apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.#transport = {
      ...policy,
      url,
      headers: headersFor(apiKey, options.authScheme ?? 'x-api-key', options.headers),
      secrets: apiKey === undefined ? [] : [apiKey],
      authHint: options.authHint ?? 'check the API key',
    };
    this.#bodyOptions = {
      model: options.model,
      maxOutputTokens,
      thinking: options.thinking,
      effort: options.effort,
      sendUnsignedReasoning: options.sendUnsignedReasoning,
      extraBody: options.extraBody,
    };
  }

  stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    // Serialised once: a retry sends exactly the same bytes.
    const body = JSON.stringify(buildAnthropicRequestBody(request, this.#bodyOptions));
    const url = this.#transport.url;
    return streamModelRequest(this.#transport, body, request.signal, () => new AnthropicTurnReader(url));
  }
}

/** https://platform.claude.com/docs/en/api/overview: `x-api-key`, `anthropic-version`, `content-type`. */
function headersFor(
  apiKey: string | undefined,
  authScheme: 'x-api-key' | 'bearer',
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'anthropic-version': ANTHROPIC_VERSION,
    ...extra,
  };
  if (apiKey !== undefined) {
    if (authScheme === 'bearer') headers.authorization = `Bearer ${apiKey}`;
    else headers['x-api-key'] = apiKey;
  }
  return headers;
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
}
