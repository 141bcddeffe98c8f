import { isHttpUrl } from '../shared/index.ts';
import type { ChatModel, ChatRequest, ChatStreamPart } from './chat-model.ts';
import {
  type ModelRequestPolicy,
  type ModelRequestPolicyOptions,
  resolveRequestPolicy,
  streamModelRequest,
  type TurnStreamReader,
} from './model-stream-request.ts';
import { buildRequestBody } from './openai-request-body.ts';
import { OpenAiTurnReader } from './openai-turn-reader.ts';
import {
  detectProvider,
  type ProviderId,
  type ProviderProfile,
  type ReasoningEffort,
  type ReasoningHistoryRule,
  reasoningSettingsProblem,
  type ThinkingSetting,
} from './provider-profile.ts';
import { PROVIDER_PROFILES } from './provider-profiles.ts';

export interface OpenAiChatModelOptions extends ModelRequestPolicyOptions {
  /**
   * The API root that `/chat/completions` is appended to, e.g. `https://api.openai.com/v1`,
   * `https://api.deepseek.com`, `https://dashscope.aliyuncs.com/compatible-mode/v1`, or a local
   * `http://localhost:11434/v1` (Ollama) or `http://localhost:8000/v1` (vLLM).
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; omit it for servers without keys. */
  apiKey?: string;
  /** The provider's model name, e.g. `gpt-4.1-mini`, `deepseek-chat`, `qwen-plus`. */
  model: string;
  /**
   * Whose quirks to follow (`provider-profiles.ts`). Default: detected from the base URL's host,
   * `openai-compatible` (plain OpenAI behaviour) when the host is not a known one.
   */
  provider?: ProviderId;
  /** Switch thinking on or off; unset leaves the provider's default. */
  thinking?: ThinkingSetting;
  /** How hard a reasoning model thinks, mapped onto what the provider accepts. */
  reasoningEffort?: ReasoningEffort;
  /** The output limit of each turn (a request's own `maxOutputTokens` wins); unset: the provider's default. */
  maxOutputTokens?: number;
  /**
   * Which earlier reasoning is sent back, overriding the provider's rule: for a gateway that serves
   * DeepSeek or Kimi under another host, or a server whose template uses it.
   */
  reasoningHistory?: ReasoningHistoryRule;
  /** Shorthand for both timeouts at once, for callers that need only one bound. */
  timeoutMs?: number;
  /** Provider-specific body fields this adapter does not model, e.g. `{ thinking_budget: 4096 }`. */
  extraBody?: Readonly<Record<string, unknown>>;
}

/**
 * A `ChatModel` over any server that speaks OpenAI's streamed Chat Completions: OpenAI, DeepSeek,
 * DashScope (Qwen), Moonshot (Kimi), SiliconFlow, OpenRouter, vLLM, Ollama, llama.cpp …, each with
 * the quirks its profile records (how thinking is switched, what reasoning goes back, which fields).
 *
 * One `stream()` call is one `POST {baseUrl}/chat/completions` with `stream: true`, through the
 * shared transport (`streamModelRequest`): retries only before the first part, timeouts, redacted
 * errors that name the endpoint and the provider's own explanation.
 */
export class OpenAiChatModel implements ChatModel {
  readonly name: string;
  readonly provider: ProviderId;
  readonly #profile: ProviderProfile;
  readonly #options: OpenAiChatModelOptions;
  readonly #endpoint: string;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #secrets: readonly string[];
  readonly #policy: ModelRequestPolicy;

  constructor(options: OpenAiChatModelOptions) {
    if (options.model.trim() === '') throw new RangeError('model must not be empty');
    this.#endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    if (!isHttpUrl(this.#endpoint)) {
      throw new RangeError(`baseUrl is not an http(s) URL: ${JSON.stringify(options.baseUrl)}`);
    }
    if (options.timeoutMs !== undefined && !(options.timeoutMs > 0))
      throw new RangeError(`timeoutMs must be a positive number of milliseconds, got ${options.timeoutMs}`);
    this.#policy = resolveRequestPolicy({
      ...options,
      firstTokenTimeoutMs: options.firstTokenTimeoutMs ?? options.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs ?? options.timeoutMs,
    });
    if (
      options.maxOutputTokens !== undefined &&
      !(Number.isInteger(options.maxOutputTokens) && options.maxOutputTokens > 0)
    )
      throw new RangeError(`maxOutputTokens must be a positive integer, got ${options.maxOutputTokens}`);
    this.provider = options.provider ?? detectProvider(options.baseUrl);
    this.#profile = PROVIDER_PROFILES[this.provider];
    if (this.#profile === undefined)
      throw new RangeError(`unknown provider: ${JSON.stringify(options.provider)}`);
    const problem = reasoningSettingsProblem(this.#profile, options.thinking, options.reasoningEffort);
    if (problem !== undefined) {
      throw new RangeError(
        `thinking ${options.thinking ?? '(unset)'}, reasoningEffort ${options.reasoningEffort ?? '(unset)'}: ${problem}`,
      );
    }
    this.#options = options;
    this.name = `openai:${options.model}`;
    const apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.#headers = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
    };
    this.#secrets = apiKey === undefined ? [] : [apiKey];
  }

  stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const options = this.#options;
    // Serialised once: a retry sends exactly the same bytes.
    const body = JSON.stringify(
      buildRequestBody(request, {
        model: options.model,
        profile: this.#profile,
        thinking: options.thinking,
        reasoningEffort: options.reasoningEffort,
        maxOutputTokens: options.maxOutputTokens,
        reasoningHistory: options.reasoningHistory,
        extraBody: options.extraBody,
      }),
    );
    const endpoint = this.#endpoint;
    const createReader = (): TurnStreamReader => new OpenAiTurnReader(endpoint);
    return streamModelRequest(
      {
        ...this.#policy,
        url: endpoint,
        headers: this.#headers,
        secrets: this.#secrets,
        authHint: 'check the API key, OPENAI_API_KEY',
      },
      body,
      request.signal,
      createReader,
    );
  }
}
