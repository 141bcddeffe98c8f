import { isHttpUrl } from '../shared/index.ts';
import { OpenAiChatModel, type OpenAiChatModelOptions } from './openai-chat-model.ts';

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** A model configuration that cannot work: a half-set environment, a URL that is not one. */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
  readonly code = 'model_config_invalid';
}

/**
 * The configured real model, or `undefined` when none is configured (the caller then falls back to
 * the offline demo model):
 *
 * - `OPENAI_BASE_URL`: the API root of any OpenAI-compatible server; `https://api.openai.com/v1`
 *   when only `OPENAI_API_KEY` is set.
 * - `OPENAI_API_KEY`: optional with a base URL (a local vLLM or Ollama needs none).
 * - `RUNSTREAM_MODEL`: the provider's model name, required as soon as either of the above is set.
 *
 * Empty values count as unset. A half-done configuration is an error, not a silent fallback to the
 * demo model: someone who set a key expects a real model to answer.
 */
export function createChatModelFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: Omit<OpenAiChatModelOptions, 'baseUrl' | 'apiKey' | 'model'> = {},
): OpenAiChatModel | undefined {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const apiKey = read('OPENAI_API_KEY');
  const baseUrl = read('OPENAI_BASE_URL') ?? (apiKey === undefined ? undefined : OPENAI_DEFAULT_BASE_URL);
  const model = read('RUNSTREAM_MODEL');
  if (baseUrl === undefined) {
    if (model === undefined) return undefined;
    throw new ModelConfigError(
      'RUNSTREAM_MODEL is set but neither OPENAI_BASE_URL nor OPENAI_API_KEY is: set OPENAI_API_KEY ' +
        '(for OpenAI) or OPENAI_BASE_URL (for another compatible server), or unset RUNSTREAM_MODEL ' +
        'to use the offline demo model',
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
      `OPENAI_BASE_URL is not an http(s) URL: ${JSON.stringify(baseUrl)} (for example https://api.deepseek.com/v1)`,
    );
  }
  return new OpenAiChatModel({ ...options, baseUrl, model, ...(apiKey === undefined ? {} : { apiKey }) });
}
