import type { ProviderId, ProviderProfile, ReasoningEffort } from './provider-profile.ts';

/**
 * The known providers, each quirk beside the documentation it comes from. Checked against the
 * providers' documentation in 2026; the conformance suite replays their recorded streams.
 */

/** OpenAI's own names; `max` is not one of them, so it asks for the most there is. */
function openAiEffort(effort: ReasoningEffort): string {
  return effort === 'max' ? 'xhigh' : effort;
}

/** For servers that take only the three classic levels. */
function threeLevelEffort(effort: ReasoningEffort): 'low' | 'medium' | 'high' {
  if (effort === 'minimal' || effort === 'low') return 'low';
  return effort === 'medium' ? 'medium' : 'high';
}

/**
 * DeepSeek's own mapping table (guides/thinking_mode, "Thinking Mode Toggle and Effort Control"):
 * minimal and low → low, medium, high and xhigh → high, max → max. Sent already mapped, so what is
 * sent is what runs.
 */
function deepSeekEffort(effort: ReasoningEffort): 'low' | 'high' | 'max' {
  if (effort === 'minimal' || effort === 'low') return 'low';
  return effort === 'max' ? 'max' : 'high';
}

const openAi: ProviderProfile = {
  id: 'openai',
  label: 'OpenAI',
  // https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort:
  // reasoning models always reason; `none` (GPT-5.1 and later) switches it off, other models refuse it.
  thinking: (enabled) => (enabled ? {} : { reasoning_effort: 'none' }),
  // Same page: minimal, low, medium, high, xhigh, as each model allows.
  effort: (effort) => ({ reasoning_effort: openAiEffort(effort) }),
  // Chat Completions never returns OpenAI's reasoning text, only its token count.
  reasoningOutputField: 'none',
  // `reasoning_content` is not a field of OpenAI's messages; unknown fields are refused with a 400.
  reasoningHistory: 'never',
  // https://platform.openai.com/docs/api-reference/chat/create#chat-create-stream_options
  includeUsage: true,
  // https://platform.openai.com/docs/api-reference/chat/create#chat-create-max_completion_tokens:
  // `max_tokens` is deprecated and not compatible with o-series models.
  maxTokensField: 'max_completion_tokens',
  // `parallel_tool_calls` defaults to true: nothing to send.
  parallelToolCalls: false,
  // https://platform.openai.com/docs/guides/reasoning: reasoning models take only the default temperature.
  omitTemperatureWhenReasoning: true,
};

const deepSeek: ProviderProfile = {
  id: 'deepseek',
  label: 'DeepSeek',
  // https://api-docs.deepseek.com/guides/thinking_mode: `thinking: {type: enabled|disabled}`, enabled
  // by default; `reasoning_effort` low/high/max.
  thinking: (enabled) => ({ thinking: { type: enabled ? 'enabled' : 'disabled' } }),
  effort: (effort) => ({ reasoning_effort: deepSeekEffort(effort) }),
  reasoningOutputField: 'reasoning_content',
  // Same page: between two user messages, if the model made tool calls, the assistant's
  // reasoning_content must be passed back in all later requests, or the API answers 400; without tool
  // calls it is not needed (and ignored if sent).
  reasoningHistory: 'tool-call-turns',
  // https://api-docs.deepseek.com/api/create-chat-completion: stream_options.include_usage; usage has
  // prompt_cache_hit_tokens / prompt_cache_miss_tokens and completion_tokens_details.reasoning_tokens.
  includeUsage: true,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  // guides/thinking_mode: temperature, top_p and the penalties are ignored in thinking mode, not refused.
  omitTemperatureWhenReasoning: false,
};

const dashScope: ProviderProfile = {
  id: 'dashscope',
  label: 'Alibaba Cloud Model Studio (DashScope)',
  // https://www.alibabacloud.com/help/en/model-studio/deep-thinking: hybrid models switch with
  // `enable_thinking` (a top-level field in compatible mode); thinking-only models ignore it.
  thinking: (enabled) => ({ enable_thinking: enabled }),
  // Only a token budget (`thinking_budget`) is documented, no effort levels.
  reasoningOutputField: 'reasoning_content',
  // Same page: the multi-turn examples send back `content` only; reasoning_content is not an input field.
  reasoningHistory: 'never',
  // Same page: `stream_options: {include_usage: true}` puts usage in the last packet, with
  // prompt_tokens_details.cached_tokens and completion_tokens_details.reasoning_tokens.
  includeUsage: true,
  maxTokensField: 'max_tokens',
  // https://www.alibabacloud.com/help/en/model-studio/qwen-function-calling: `parallel_tool_calls`
  // defaults to false, so Qwen makes one call per turn unless asked.
  parallelToolCalls: true,
  omitTemperatureWhenReasoning: false,
};

const moonshot: ProviderProfile = {
  id: 'moonshot',
  label: 'Moonshot AI (Kimi)',
  // https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model: kimi-k2.5 / k2.6 think by
  // default and switch with `thinking: {type: "disabled"}`; kimi-k2-thinking always thinks. No effort.
  thinking: (enabled) => ({ thinking: { type: enabled ? 'enabled' : 'disabled' } }),
  reasoningOutputField: 'reasoning_content',
  // Same page: keep reasoning_content in the context for multi-step tool use; the API refuses a
  // request while thinking with "reasoning_content is missing in assistant tool call message at index N".
  reasoningHistory: 'always',
  // Moonshot reports usage (with a top-level `cached_tokens`) in the finishing chunk, inside the choice
  // on older models; the parser reads both places.
  includeUsage: true,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  omitTemperatureWhenReasoning: false,
};

const siliconFlow: ProviderProfile = {
  id: 'siliconflow',
  label: 'SiliconFlow',
  // https://docs.siliconflow.cn/cn/api-reference/chat-completions/chat-completions: `enable_thinking`
  // for hybrid models (Qwen3, GLM, DeepSeek V3.x …) and `thinking_budget`; no effort levels for most.
  thinking: (enabled) => ({ enable_thinking: enabled }),
  reasoningOutputField: 'reasoning_content',
  reasoningHistory: 'never',
  // Not in its API reference; usage (with prompt_cache_hit_tokens and
  // completion_tokens_details.reasoning_tokens) is read wherever a chunk carries it.
  includeUsage: false,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  omitTemperatureWhenReasoning: false,
};

const openRouter: ProviderProfile = {
  id: 'openrouter',
  label: 'OpenRouter',
  // https://openrouter.ai/docs/use-cases/reasoning-tokens: one `reasoning` object across models:
  // `effort` xhigh/high/medium/low/minimal/none, or `enabled: true` for the model's default.
  thinking: (enabled) => ({ reasoning: enabled ? { enabled: true } : { effort: 'none' } }),
  effort: (effort) => ({ reasoning: { effort: openAiEffort(effort) } }),
  // Same page: reasoning arrives in `reasoning` (and structured `reasoning_details`).
  reasoningOutputField: 'reasoning',
  // Reasoning text alone is not what OpenRouter asks to preserve (it wants `reasoning_details`, which
  // this adapter does not keep); nothing is sent back.
  reasoningHistory: 'never',
  includeUsage: true,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  omitTemperatureWhenReasoning: false,
};

const vllm: ProviderProfile = {
  id: 'vllm',
  label: 'vLLM',
  // https://docs.vllm.ai/en/stable/features/reasoning_outputs/: Qwen3's reasoning is on by default and
  // switched off with `chat_template_kwargs: {enable_thinking: false}` (other templates use other names).
  thinking: (enabled) => ({ chat_template_kwargs: { enable_thinking: enabled } }),
  // Same page: the field is `reasoning` (formerly `reasoning_content`).
  reasoningOutputField: 'reasoning',
  reasoningHistory: 'never',
  includeUsage: true,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  omitTemperatureWhenReasoning: false,
};

const ollama: ProviderProfile = {
  id: 'ollama',
  label: 'Ollama',
  // https://docs.ollama.com/api/openai-compatibility: `reasoning_effort` (model-defined names and
  // compatibility aliases; `none` switches thinking off) and `stream_options.include_usage`.
  thinking: (enabled) => ({ reasoning_effort: enabled ? 'medium' : 'none' }),
  effort: (effort) => ({ reasoning_effort: threeLevelEffort(effort) }),
  reasoningOutputField: 'reasoning',
  reasoningHistory: 'never',
  includeUsage: true,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  omitTemperatureWhenReasoning: false,
};

const llamaCpp: ProviderProfile = {
  id: 'llamacpp',
  label: 'llama.cpp server',
  // https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md: `chat_template_kwargs`
  // per request (e.g. `{"enable_thinking": false}`); reasoning in `reasoning_content` with the default
  // `--reasoning-format`.
  thinking: (enabled) => ({ chat_template_kwargs: { enable_thinking: enabled } }),
  reasoningOutputField: 'reasoning_content',
  reasoningHistory: 'never',
  includeUsage: true,
  maxTokensField: 'max_tokens',
  // `parallel_tool_calls` defaults to false there (tools/server README; `common/chat.cpp`): without
  // it the template's grammar allows one call per turn.
  parallelToolCalls: true,
  omitTemperatureWhenReasoning: false,
};

/** Any other server: OpenAI's wire format and nothing that might be refused. */
const openAiCompatible: ProviderProfile = {
  id: 'openai-compatible',
  label: 'an OpenAI-compatible server',
  reasoningOutputField: 'reasoning_content',
  reasoningHistory: 'never',
  includeUsage: true,
  maxTokensField: 'max_tokens',
  parallelToolCalls: false,
  omitTemperatureWhenReasoning: false,
};

export const PROVIDER_PROFILES: Readonly<Record<ProviderId, ProviderProfile>> = {
  openai: openAi,
  deepseek: deepSeek,
  dashscope: dashScope,
  moonshot,
  siliconflow: siliconFlow,
  openrouter: openRouter,
  vllm,
  ollama,
  llamacpp: llamaCpp,
  'openai-compatible': openAiCompatible,
};
