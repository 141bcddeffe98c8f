/**
 * What an OpenAI-compatible provider does differently from OpenAI's own Chat Completions: how its
 * reasoning is switched, what it needs back in the history, which fields it takes. The table of
 * known providers is `provider-profiles.ts`; this file holds the shape and the choice of a profile.
 */

/** The providers this adapter knows; `openai-compatible` is plain OpenAI behaviour for any other server. */
export const PROVIDER_IDS = [
  'openai',
  'deepseek',
  'dashscope',
  'moonshot',
  'siliconflow',
  'openrouter',
  'vllm',
  'ollama',
  'llamacpp',
  'openai-compatible',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** A reasoning effort as a user asks for it; each profile maps it onto what its provider accepts. */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** Thinking switched on or off explicitly; unset leaves the provider's (or model's) default. */
export const THINKING_SETTINGS = ['on', 'off'] as const;
export type ThinkingSetting = (typeof THINKING_SETTINGS)[number];

/**
 * Which earlier assistant messages carry their reasoning back (as `reasoning_content`):
 * - `never`: the provider refuses the field (OpenAI) or documents no use for it;
 * - `tool-call-turns`: DeepSeek's rule: within a user turn (between two user messages) in which the
 *   assistant made tool calls, every assistant message of that turn carries its reasoning, in every
 *   later request;
 * - `always`: every assistant message that has reasoning carries it (Kimi keeps it in context and
 *   refuses a tool-call message without it while thinking).
 */
export const REASONING_HISTORY_RULES = ['never', 'tool-call-turns', 'always'] as const;
export type ReasoningHistoryRule = (typeof REASONING_HISTORY_RULES)[number];

export interface ProviderProfile {
  id: ProviderId;
  /** The provider's name in messages and docs. */
  label: string;
  /**
   * The body fields that switch thinking on or off; absent when the provider documents no switch (a
   * setting is then refused at start rather than silently ignored).
   */
  thinking?: (enabled: boolean) => Record<string, unknown>;
  /** The body fields for an effort; absent when the provider documents no effort control. */
  effort?: (effort: ReasoningEffort) => Record<string, unknown>;
  /** Where streamed reasoning arrives (the parser reads both names; this documents the provider). */
  reasoningOutputField: 'reasoning_content' | 'reasoning' | 'none';
  reasoningHistory: ReasoningHistoryRule;
  /** Whether `stream_options: { include_usage: true }` is accepted (the usage chunk needs it). */
  includeUsage: boolean;
  /** The output limit's name: OpenAI's reasoning models refuse `max_tokens`. */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Sent as `parallel_tool_calls: true` with tools, for providers whose default is one call per turn. */
  parallelToolCalls: boolean;
  /**
   * The provider refuses `temperature` once reasoning is asked for (OpenAI's reasoning models answer
   * 400 for anything but the default), so it is left out then.
   */
  omitTemperatureWhenReasoning: boolean;
}

/**
 * The provider a base URL points at: by its host for the hosted APIs, by Ollama's own port for a
 * local Ollama. vLLM (8000) and llama.cpp (8080) listen on ports many other servers use too, so they
 * are chosen only explicitly (`provider`, `RUNSTREAM_MODEL_PROVIDER`). Anything else is
 * `openai-compatible`.
 */
export function detectProvider(baseUrl: string): ProviderId {
  if (!URL.canParse(baseUrl)) return 'openai-compatible';
  const url = new URL(baseUrl);
  const host = url.hostname.toLowerCase();
  if (host === 'api.openai.com') return 'openai';
  if (host === 'api.deepseek.com') return 'deepseek';
  // Beijing, Singapore (`-intl`) and the other regions of Alibaba Cloud Model Studio.
  if (/^dashscope(-[a-z]+)?\.aliyuncs\.com$/.test(host)) return 'dashscope';
  if (host === 'api.moonshot.cn' || host === 'api.moonshot.ai' || host === 'api.kimi.com') return 'moonshot';
  // api.siliconflow.cn, api.siliconflow.com and regional hosts such as api.ap.siliconflow.com.
  if (/^api(\.[a-z]+)?\.siliconflow\.(cn|com)$/.test(host)) return 'siliconflow';
  if (host === 'openrouter.ai') return 'openrouter';
  if (url.port === '11434') return 'ollama';
  return 'openai-compatible';
}

/**
 * Why a thinking or effort setting cannot go to this provider, or `undefined` when it can. Said in
 * neutral words so both the adapter's options and the environment can name their own setting.
 */
export function reasoningSettingsProblem(
  profile: ProviderProfile,
  thinking: ThinkingSetting | undefined,
  effort: ReasoningEffort | undefined,
): string | undefined {
  if (thinking !== undefined && profile.thinking === undefined) {
    return `${profile.label} (${profile.id}) documents no switch for thinking; leave it unset`;
  }
  if (effort !== undefined && profile.effort === undefined) {
    return `${profile.label} (${profile.id}) documents no reasoning effort; leave it unset`;
  }
  if (effort !== undefined && thinking === 'off') {
    return 'a reasoning effort needs thinking, which is switched off';
  }
  return undefined;
}

/** The body fields for the settings (thinking first, the effort over it); empty when neither is set. */
export function reasoningControlFields(
  profile: ProviderProfile,
  thinking: ThinkingSetting | undefined,
  effort: ReasoningEffort | undefined,
): Record<string, unknown> {
  return {
    ...(thinking === undefined ? {} : profile.thinking?.(thinking === 'on')),
    ...(effort === undefined ? {} : profile.effort?.(effort)),
  };
}
