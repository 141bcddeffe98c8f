import { isHttpUrl } from '../shared/index.ts';
import {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_MIN_THINKING_BUDGET,
  AnthropicMessagesModel,
} from './anthropic-messages-model.ts';
import type { AnthropicThinking } from './anthropic-request-body.ts';
import type { ChatModel } from './chat-model.ts';
import { OpenAiChatModel, type OpenAiChatModelOptions } from './openai-chat-model.ts';
import {
  detectProvider,
  PROVIDER_IDS,
  REASONING_EFFORTS,
  type ReasoningEffort,
  reasoningSettingsProblem,
  THINKING_SETTINGS,
} from './provider-profile.ts';
import { PROVIDER_PROFILES } from './provider-profiles.ts';
import { createScriptedModelFromFile, ScriptedTurnsFileError } from './scripted-turns-file.ts';

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The wire protocols a model can be reached with. */
const MODEL_APIS = ['openai', 'anthropic'] as const;
type ModelApi = (typeof MODEL_APIS)[number];

/** A model configuration that cannot work: a half-set environment, a URL that is not one, a bad value. */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
  readonly code = 'model_config_invalid';
}

type Environment = Readonly<Record<string, string | undefined>>;
type Reader = (name: string) => string | undefined;

/**
 * The configured model, or `undefined` when none is configured (the caller then falls back to the
 * offline model):
 *
 * - `RUNSTREAM_MODEL=scripted:<file.jsonl>`: replays the turns of a JSONL script, one per model call
 *   (`loadScriptedTurns`); no key, and the other variables are not read. A path that is empty,
 *   missing or a line that is not a turn is a `ModelConfigError` naming the file and line.
 * - `OPENAI_BASE_URL`: the API root of any OpenAI-compatible server; `https://api.openai.com/v1`
 *   when only `OPENAI_API_KEY` is set.
 * - `OPENAI_API_KEY`: optional with a base URL (a local vLLM or Ollama needs none).
 * - `RUNSTREAM_MODEL`: the provider's model name, required as soon as either of the above is set.
 * - `RUNSTREAM_MODEL_API`: the wire protocol, `openai` (Chat Completions, the default) or `anthropic`
 *   (Messages; implied when a model is named and only `ANTHROPIC_*` variables are set), which reads
 *   `ANTHROPIC_BASE_URL` (default `https://api.anthropic.com`) and `ANTHROPIC_API_KEY` instead, takes
 *   `RUNSTREAM_MODEL_PROVIDER` `anthropic`, `deepseek`, `moonshot` or `dashscope`, also accepts
 *   `RUNSTREAM_MODEL_THINKING=adaptive`, and `RUNSTREAM_MODEL_THINKING_BUDGET` (default 2 048).
 * - `RUNSTREAM_MODEL_PROVIDER`: whose quirks to follow (`openai`, `deepseek`, `dashscope`,
 *   `moonshot`, `siliconflow`, `openrouter`, `vllm`, `ollama`, `llamacpp`, `openai-compatible`);
 *   default: detected from the base URL's host.
 * - `RUNSTREAM_MODEL_THINKING`: `on` or `off`; unset leaves the provider's default.
 * - `RUNSTREAM_MODEL_REASONING_EFFORT`: `minimal`, `low`, `medium`, `high`, `xhigh` or `max`,
 *   mapped onto what the provider accepts.
 * - `RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS`: the output limit of each model turn.
 * - `RUNSTREAM_MODEL_FIRST_TOKEN_TIMEOUT_MS` (default 180 000), `RUNSTREAM_MODEL_IDLE_TIMEOUT_MS`
 *   (default 60 000), `RUNSTREAM_MODEL_MAX_RETRIES` (default 3).
 *
 * Empty values count as unset. A half-done configuration, or any value that is not one of those
 * accepted, is a `ModelConfigError` naming the variable: someone who set a key expects a real model
 * to answer, and a misspelt setting silently ignored would look like a provider's fault.
 */
export function createChatModelFromEnv(
  env: Environment = process.env,
  options: Omit<OpenAiChatModelOptions, 'baseUrl' | 'apiKey' | 'model'> = {},
): ChatModel | undefined {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const model = read('RUNSTREAM_MODEL');
  if (model?.startsWith(SCRIPTED_PREFIX))
    return scriptedModelFromEnv(model.slice(SCRIPTED_PREFIX.length).trim());
  const api = oneOf(read, 'RUNSTREAM_MODEL_API', MODEL_APIS) ?? impliedApi(read, model);
  if (api === 'anthropic') return anthropicModelFromEnv(read, model, options);
  const apiKey = read('OPENAI_API_KEY');
  const baseUrl = read('OPENAI_BASE_URL') ?? (apiKey === undefined ? undefined : OPENAI_DEFAULT_BASE_URL);
  if (baseUrl === undefined) {
    if (model === undefined) return undefined;
    throw new ModelConfigError(
      'RUNSTREAM_MODEL is set but neither OPENAI_BASE_URL nor OPENAI_API_KEY is: set OPENAI_API_KEY ' +
        '(for OpenAI) or OPENAI_BASE_URL (for another compatible server), or ANTHROPIC_API_KEY with ' +
        'RUNSTREAM_MODEL_API=anthropic, or unset RUNSTREAM_MODEL to use the offline demo model',
    );
  }
  if (model === undefined) {
    const which = read('OPENAI_BASE_URL') === undefined ? 'OPENAI_API_KEY' : 'OPENAI_BASE_URL';
    throw new ModelConfigError(
      `${which} is set but RUNSTREAM_MODEL is not: name the provider's model, for example ` +
        'RUNSTREAM_MODEL=gpt-4.1-mini, deepseek-chat or qwen-plus',
    );
  }
  if (!isHttpUrl(baseUrl)) {
    throw new ModelConfigError(
      `OPENAI_BASE_URL is not an http(s) URL: ${JSON.stringify(baseUrl)} (for example https://api.deepseek.com)`,
    );
  }
  if (read('RUNSTREAM_MODEL_THINKING_BUDGET') !== undefined) {
    // Read only by the Messages protocol: ignored here, it would look like a budget in force.
    throw new ModelConfigError(
      'RUNSTREAM_MODEL_THINKING_BUDGET applies to RUNSTREAM_MODEL_API=anthropic only; a Chat Completions ' +
        "provider's own budget field (DashScope's thinking_budget …) goes in the extraBody option",
    );
  }
  const provider = oneOf(read, 'RUNSTREAM_MODEL_PROVIDER', PROVIDER_IDS);
  const thinking = oneOf(read, 'RUNSTREAM_MODEL_THINKING', THINKING_SETTINGS);
  const reasoningEffort = oneOf(read, 'RUNSTREAM_MODEL_REASONING_EFFORT', REASONING_EFFORTS);
  const profile = PROVIDER_PROFILES[provider ?? detectProvider(baseUrl)];
  const problem = reasoningSettingsProblem(profile, thinking, reasoningEffort);
  if (problem !== undefined) {
    const settings = [
      thinking === undefined ? undefined : `RUNSTREAM_MODEL_THINKING=${thinking}`,
      reasoningEffort === undefined ? undefined : `RUNSTREAM_MODEL_REASONING_EFFORT=${reasoningEffort}`,
    ].filter((setting) => setting !== undefined);
    const chosen =
      provider === undefined
        ? ` (detected from OPENAI_BASE_URL; set RUNSTREAM_MODEL_PROVIDER to choose another)`
        : '';
    throw new ModelConfigError(`${settings.join(' with ')}: ${problem}${chosen}`);
  }
  return new OpenAiChatModel({
    ...options,
    ...transportSettings(read),
    baseUrl,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(provider === undefined ? {} : { provider }),
    ...(thinking === undefined ? {} : { thinking }),
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
  });
}

const SCRIPTED_PREFIX = 'scripted:';

function scriptedModelFromEnv(path: string): ChatModel {
  if (path === '') {
    throw new ModelConfigError(
      'RUNSTREAM_MODEL=scripted: names no file: write RUNSTREAM_MODEL=scripted:<file.jsonl> (one turn per line)',
    );
  }
  try {
    return createScriptedModelFromFile(path);
  } catch (error) {
    if (!(error instanceof ScriptedTurnsFileError)) throw error;
    throw new ModelConfigError(`RUNSTREAM_MODEL=scripted:${path}: ${error.message}`, { cause: error });
  }
}

/**
 * Without `RUNSTREAM_MODEL_API`: Anthropic's protocol when a model is named and only Anthropic's
 * variables are set. A lone `ANTHROPIC_API_KEY` (many shells carry one for other tools) does not
 * switch the offline demo off; it takes `RUNSTREAM_MODEL` to ask for a real model.
 */
function impliedApi(read: Reader, model: string | undefined): ModelApi {
  const openAi = read('OPENAI_API_KEY') !== undefined || read('OPENAI_BASE_URL') !== undefined;
  const anthropic = read('ANTHROPIC_API_KEY') !== undefined || read('ANTHROPIC_BASE_URL') !== undefined;
  return model !== undefined && anthropic && !openAi ? 'anthropic' : 'openai';
}

/**
 * The Anthropic Messages model: `ANTHROPIC_BASE_URL` (default Anthropic's own API; DeepSeek, Kimi and
 * Qwen serve the same protocol under their own roots) and `ANTHROPIC_API_KEY`. The provider decides
 * whether unsigned reasoning goes back: Claude refuses unsigned thinking blocks, while DeepSeek, Kimi
 * and Qwen sign nothing and need the reasoning of tool-call turns back.
 */
function anthropicModelFromEnv(
  read: Reader,
  model: string | undefined,
  options: Omit<OpenAiChatModelOptions, 'baseUrl' | 'apiKey' | 'model'>,
): ChatModel {
  if (model === undefined) {
    throw new ModelConfigError(
      "RUNSTREAM_MODEL_API=anthropic is set but RUNSTREAM_MODEL is not: name the provider's model, for " +
        'example RUNSTREAM_MODEL=claude-sonnet-4-5 or deepseek-v4-pro',
    );
  }
  const apiKey = read('ANTHROPIC_API_KEY');
  const baseUrl = read('ANTHROPIC_BASE_URL') ?? ANTHROPIC_DEFAULT_BASE_URL;
  if (!isHttpUrl(baseUrl)) {
    throw new ModelConfigError(
      `ANTHROPIC_BASE_URL is not an http(s) URL: ${JSON.stringify(baseUrl)} (for example https://api.deepseek.com/anthropic)`,
    );
  }
  const provider =
    oneOf(read, 'RUNSTREAM_MODEL_PROVIDER', ANTHROPIC_PROVIDER_IDS) ?? detectAnthropicProvider(baseUrl);
  const thinking = oneOf(read, 'RUNSTREAM_MODEL_THINKING', ANTHROPIC_THINKING_SETTINGS);
  const budgetTokens = wholeNumber(read, 'RUNSTREAM_MODEL_THINKING_BUDGET', ANTHROPIC_MIN_THINKING_BUDGET);
  if (budgetTokens !== undefined && thinking !== 'on') {
    throw new ModelConfigError(
      'RUNSTREAM_MODEL_THINKING_BUDGET is set but RUNSTREAM_MODEL_THINKING is not on',
    );
  }
  const effort = oneOf(read, 'RUNSTREAM_MODEL_REASONING_EFFORT', REASONING_EFFORTS);
  if (effort !== undefined && thinking === 'off') {
    throw new ModelConfigError(
      `RUNSTREAM_MODEL_REASONING_EFFORT=${effort} with RUNSTREAM_MODEL_THINKING=off: a reasoning effort needs thinking`,
    );
  }
  const transport = transportSettings(read);
  return new AnthropicMessagesModel({
    baseUrl,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(thinking === undefined ? {} : { thinking: anthropicThinking(thinking, budgetTokens) }),
    ...(effort === undefined ? {} : { effort: ANTHROPIC_EFFORTS[effort] }),
    // DeepSeek, Kimi and Qwen sign nothing: their reasoning must go back unsigned (see the option).
    sendUnsignedReasoning: provider !== 'anthropic',
    authHint: 'check ANTHROPIC_API_KEY',
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.initialDelayMs === undefined ? {} : { initialDelayMs: options.initialDelayMs }),
    ...(options.maxDelayMs === undefined ? {} : { maxDelayMs: options.maxDelayMs }),
    ...transport,
  });
}

/** The providers that serve the Anthropic Messages protocol and that runstream knows. */
const ANTHROPIC_PROVIDER_IDS = ['anthropic', 'deepseek', 'moonshot', 'dashscope'] as const;
type AnthropicProviderId = (typeof ANTHROPIC_PROVIDER_IDS)[number];

/** `adaptive` lets Claude decide how much to think (the newest models take only this form). */
const ANTHROPIC_THINKING_SETTINGS = ['on', 'off', 'adaptive'] as const;

/** Used when `RUNSTREAM_MODEL_THINKING=on` names no budget: twice the API's minimum of 1,024. */
export const ANTHROPIC_DEFAULT_THINKING_BUDGET = 2048;

/**
 * `output_config.effort` takes `low`, `medium`, `high` and, on the models that have it (and
 * DeepSeek's endpoint), `max`; `xhigh` exists only on the newest Claude models, so it asks for `high`,
 * which every model takes, and `minimal` for `low`.
 */
const ANTHROPIC_EFFORTS: Record<ReasoningEffort, string> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'max',
};

function detectAnthropicProvider(baseUrl: string): AnthropicProviderId {
  const provider = detectProvider(baseUrl);
  return provider === 'deepseek' || provider === 'moonshot' || provider === 'dashscope'
    ? provider
    : 'anthropic';
}

function anthropicThinking(
  setting: (typeof ANTHROPIC_THINKING_SETTINGS)[number],
  budgetTokens: number | undefined,
): AnthropicThinking {
  if (setting === 'off') return { type: 'disabled' };
  if (setting === 'adaptive') return { type: 'adaptive' };
  return { type: 'enabled', budgetTokens: budgetTokens ?? ANTHROPIC_DEFAULT_THINKING_BUDGET };
}

/** The limit, timeout and retry settings both protocols share. */
function transportSettings(read: Reader): {
  maxOutputTokens?: number;
  firstTokenTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
} {
  const maxOutputTokens = wholeNumber(read, 'RUNSTREAM_MODEL_MAX_OUTPUT_TOKENS', 1);
  const firstTokenTimeoutMs = wholeNumber(read, 'RUNSTREAM_MODEL_FIRST_TOKEN_TIMEOUT_MS', 1);
  const idleTimeoutMs = wholeNumber(read, 'RUNSTREAM_MODEL_IDLE_TIMEOUT_MS', 1);
  const maxRetries = wholeNumber(read, 'RUNSTREAM_MODEL_MAX_RETRIES', 0);
  return {
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(firstTokenTimeoutMs === undefined ? {} : { firstTokenTimeoutMs }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  };
}

/** The variable's value when it is one of `accepted`; a `ModelConfigError` listing them when not. */
function oneOf<T extends string>(read: Reader, name: string, accepted: readonly T[]): T | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  const match = accepted.find((candidate) => candidate === value.toLowerCase());
  if (match !== undefined) return match;
  throw new ModelConfigError(`${name}=${JSON.stringify(value)} is not one of ${accepted.join(', ')}`);
}

/** A whole number of at least `minimum`, written in plain digits. */
function wholeNumber(read: Reader, name: string, minimum: number): number | undefined {
  const value = read(name);
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isSafeInteger(number) && number >= minimum) return number;
  throw new ModelConfigError(`${name}=${JSON.stringify(value)} is not a whole number of at least ${minimum}`);
}
