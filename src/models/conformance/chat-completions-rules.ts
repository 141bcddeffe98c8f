import { isRecord } from '../../shared/index.ts';
import { openAiError, type ProviderRefusal } from './provider-refusal.ts';

/**
 * What each OpenAI-compatible provider refuses, written from its documentation (or, where the
 * documentation is silent, from its own server code or its errors as users quoted them), never
 * from this project's adapter. PROVIDER-RULES.md lists every rule under the id a refusal reports,
 * with its source. A rule returns the provider's answer (status and body) or `undefined`.
 */

export type ChatCompletionsProvider =
  | 'openai'
  | 'deepseek'
  | 'dashscope'
  | 'moonshot'
  | 'openrouter'
  | 'vllm'
  | 'ollama'
  | 'llamacpp';

type Json = Record<string, unknown>;
interface ChatBody extends Json {
  model?: unknown;
  messages: Json[];
}
type Rule = (body: ChatBody) => ProviderRefusal | undefined;

/** The refusal `provider` would answer to `body`, or `undefined` when it would stream an answer. */
export function checkChatCompletionsRequest(
  provider: ChatCompletionsProvider,
  body: unknown,
): ProviderRefusal | undefined {
  if (!isRecord(body) || !Array.isArray(body.messages) || !body.messages.every(isRecord)) {
    return refuse('replay.shape', openAiError("'messages' is a required property", { param: 'messages' }));
  }
  for (const rule of [...PROVIDER_RULES[provider], ...GENERIC_RULES, streamOnly]) {
    const refusal = rule(body as ChatBody);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

function refuse(rule: string, body: unknown, status = 400): ProviderRefusal {
  return { status, body, rule };
}

function toolCallsOf(message: Json): Json[] {
  return Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
}

/** The recordings are streams; a provider would answer a request without `stream: true` with JSON. */
const streamOnly: Rule = (body) =>
  body.stream === true
    ? undefined
    : refuse(
        'replay.stream_only',
        openAiError('this replay server serves recorded streams only: send "stream": true'),
      );

// ---------------------------------------------------------------------------------------------
// Generic: the tool-call pairing every Chat Completions server checks (OpenAI's wording).

/** Each `tool` message answers a call of the assistant message its run of tool messages follows. */
const toolAnswersCall: Rule = ({ messages }) => {
  let calls: Set<string> | undefined;
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') calls = new Set(toolCallsOf(message).map((call) => String(call.id)));
    else if (message.role !== 'tool') calls = undefined;
    if (message.role === 'tool' && !calls?.has(String(message.tool_call_id))) {
      return refuse(
        'generic.tool_answers_call',
        openAiError(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          { param: `messages.[${index}].role` },
        ),
      );
    }
  }
  return undefined;
};

/** Every call of an assistant message is answered by the tool messages right after it. */
const everyCallAnswered: Rule = ({ messages }) => {
  for (const [index, message] of messages.entries()) {
    const calls = toolCallsOf(message);
    if (message.role !== 'assistant' || calls.length === 0) continue;
    const answered = new Set<string>();
    for (const next of messages.slice(index + 1)) {
      if (next.role !== 'tool') break;
      answered.add(String(next.tool_call_id));
    }
    const missing = calls.map((call) => String(call.id)).filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return refuse(
        'generic.every_call_answered',
        openAiError(
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
            `'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
          { param: `messages.[${index}].role` },
        ),
      );
    }
  }
  return undefined;
};

/** `function.arguments` of a call sent back is the JSON text, not a parsed object. */
const argumentsAreText: Rule = ({ messages }) => {
  for (const [index, message] of messages.entries()) {
    for (const [callIndex, call] of toolCallsOf(message).entries()) {
      const fn = isRecord(call.function) ? call.function : {};
      if (typeof fn.arguments !== 'string') {
        const param = `messages[${index}].tool_calls[${callIndex}].function.arguments`;
        const got = Array.isArray(fn.arguments) ? 'an array' : fn.arguments === null ? 'null' : 'an object';
        return refuse(
          'generic.arguments_are_text',
          openAiError(`Invalid type for '${param}': expected a string, but got ${got} instead.`, {
            param,
            code: 'invalid_type',
          }),
        );
      }
    }
  }
  return undefined;
};

const GENERIC_RULES: readonly Rule[] = [toolAnswersCall, everyCallAnswered, argumentsAreText];

// ---------------------------------------------------------------------------------------------
// OpenAI

const isOpenAiReasoningModel = (model: unknown) => typeof model === 'string' && /^(o\d|gpt-5)/.test(model);

/** Reasoning models take `max_completion_tokens`; `max_tokens` is refused. */
const openAiMaxTokens: Rule = (body) =>
  isOpenAiReasoningModel(body.model) && 'max_tokens' in body
    ? refuse(
        'openai.max_completion_tokens',
        openAiError(
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          { param: 'max_tokens', code: 'unsupported_parameter' },
        ),
      )
    : undefined;

/** Reasoning models accept only the default temperature. */
const openAiTemperature: Rule = (body) =>
  isOpenAiReasoningModel(body.model) && body.temperature !== undefined && body.temperature !== 1
    ? refuse(
        'openai.default_temperature',
        openAiError(
          `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`,
          { param: 'temperature', code: 'unsupported_value' },
        ),
      )
    : undefined;

/** The request body fields of https://platform.openai.com/docs/api-reference/chat/create. */
const OPENAI_FIELDS = new Set([
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

/** Another provider's switch (`thinking`, `enable_thinking`, `chat_template_kwargs` …) is refused. */
const openAiKnownFields: Rule = (body) => {
  const unknown = Object.keys(body).find((key) => !OPENAI_FIELDS.has(key));
  if (unknown !== undefined) {
    return refuse('openai.known_fields', openAiError(`Unrecognized request argument supplied: ${unknown}`));
  }
  if ('reasoning_effort' in body && !isOpenAiReasoningModel(body.model)) {
    return refuse(
      'openai.known_fields',
      openAiError('Unrecognized request argument supplied: reasoning_effort'),
    );
  }
  return undefined;
};

/** The message fields OpenAI documents per role; others (`reasoning_content`, `reasoning`) are refused. */
const OPENAI_MESSAGE_FIELDS: Record<string, ReadonlySet<string>> = {
  system: new Set(['role', 'content', 'name']),
  developer: new Set(['role', 'content', 'name']),
  user: new Set(['role', 'content', 'name']),
  assistant: new Set(['role', 'content', 'refusal', 'name', 'audio', 'tool_calls', 'function_call']),
  tool: new Set(['role', 'content', 'tool_call_id']),
};

const openAiMessageFields: Rule = ({ messages }) => {
  for (const [index, message] of messages.entries()) {
    const allowed = OPENAI_MESSAGE_FIELDS[String(message.role)];
    const extra = allowed === undefined ? undefined : Object.keys(message).find((key) => !allowed.has(key));
    if (extra !== undefined) {
      return refuse(
        'openai.message_fields',
        openAiError(
          `Additional properties are not allowed ('${extra}' was unexpected) - 'messages.${index}'`,
        ),
      );
    }
  }
  return undefined;
};

// ---------------------------------------------------------------------------------------------
// DeepSeek (https://api-docs.deepseek.com/guides/thinking_mode)

function deepSeekThinks(body: ChatBody): boolean {
  const thinking = isRecord(body.thinking) ? body.thinking.type : undefined;
  if (thinking === 'disabled') return false;
  if (thinking === 'enabled' || body.model === 'deepseek-reasoner') return true;
  // The V4 models think unless told not to; the legacy `deepseek-chat` alias does not.
  return typeof body.model === 'string' && body.model.startsWith('deepseek-v4');
}

/**
 * Between two user messages, once the model made a tool call, every assistant message of that
 * stretch carries its `reasoning_content` back, in this request and every later one.
 */
const deepSeekReasoningBack: Rule = (body) => {
  if (!deepSeekThinks(body)) return undefined;
  let stretch: Json[] = [];
  const stretches: Json[][] = [stretch];
  for (const message of body.messages) {
    if (message.role === 'user') {
      stretch = [];
      stretches.push(stretch);
    } else if (message.role === 'assistant') stretch.push(message);
  }
  for (const assistants of stretches) {
    if (!assistants.some((message) => toolCallsOf(message).length > 0)) continue;
    if (assistants.some((message) => typeof message.reasoning_content !== 'string')) {
      return refuse('deepseek.reasoning_content_back', {
        error: {
          message: 'The `reasoning_content` in the thinking mode must be passed back to the API.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request_error',
        },
      });
    }
  }
  return undefined;
};

// ---------------------------------------------------------------------------------------------
// DashScope / Qwen (https://help.aliyun.com/zh/model-studio/deep-thinking)

const dashScopeThinkingStreams: Rule = (body) =>
  body.enable_thinking === true && body.stream !== true
    ? refuse('dashscope.thinking_streams_only', {
        error: {
          code: 'invalid_parameter_error',
          message: 'parameter.enable_thinking must be set to false for non-streaming calls',
          param: null,
          type: 'invalid_request_error',
        },
        request_id: '53ada3be-865a-4b26-a48d-1ca6e3cf6219',
      })
    : undefined;

// ---------------------------------------------------------------------------------------------
// Moonshot / Kimi (https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model)

function kimiThinks(body: ChatBody): boolean {
  const model = typeof body.model === 'string' ? body.model : '';
  const thinking = isRecord(body.thinking) ? body.thinking.type : undefined;
  if (model.includes('thinking')) return true;
  if (thinking === 'disabled') return false;
  if (thinking === 'enabled') return true;
  // kimi-k2.5 and later think by default; moonshot-v1 and the older K2 previews never do.
  return /^kimi-k(2\.[5-9]|[3-9])/.test(model);
}

/** With thinking on, every assistant message that made tool calls carries its `reasoning_content`. */
const kimiReasoningBack: Rule = (body) => {
  if (!kimiThinks(body)) return undefined;
  for (const [index, message] of body.messages.entries()) {
    if (message.role !== 'assistant' || toolCallsOf(message).length === 0) continue;
    if (typeof message.reasoning_content !== 'string') {
      return refuse('moonshot.reasoning_content_back', {
        error: {
          message: `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}`,
          type: 'invalid_request_error',
        },
      });
    }
  }
  return undefined;
};

// ---------------------------------------------------------------------------------------------
// Ollama (ollama/ollama openai/openai.go: thinkFromReasoningEffort, NewError)

const OLLAMA_EFFORTS = new Set(['', 'none', 'minimal', 'low', 'medium', 'high', 'max', 'xhigh', 'ultra']);

const ollamaEffort: Rule = (body) => {
  const effort = isRecord(body.reasoning) ? body.reasoning.effort : body.reasoning_effort;
  if (effort === undefined || effort === null || (typeof effort === 'string' && OLLAMA_EFFORTS.has(effort))) {
    return undefined;
  }
  return refuse(
    'ollama.reasoning_effort_values',
    openAiError(
      `invalid reasoning value: ${JSON.stringify(String(effort))} (must be "minimal", "low", "medium", "high", "xhigh", "ultra", "max", or "none")`,
    ),
  );
};

// ---------------------------------------------------------------------------------------------
// llama.cpp server (ggml-org/llama.cpp common/chat.cpp: common_chat_msgs_parse_oaicompat)

const llamaCppMessages: Rule = ({ messages }) => {
  const parseError = (detail: string) =>
    refuse('llamacpp.message_shape', {
      error: {
        code: 400,
        message: `Failed to parse messages: ${detail}; messages = ${JSON.stringify(messages, null, 2)}`,
        type: 'invalid_request_error',
      },
    });
  for (const message of messages) {
    if (!('content' in message)) {
      return parseError("Expected 'content' (ref: https://github.com/ggml-org/llama.cpp/issues/8367)");
    }
    for (const call of toolCallsOf(message)) {
      if (call.type !== 'function') return parseError(`Missing tool call type: ${JSON.stringify(call)}`);
      if (!isRecord(call.function) || typeof call.function.name !== 'string') {
        return parseError(`Missing tool call name: ${JSON.stringify(call)}`);
      }
    }
  }
  return undefined;
};

const PROVIDER_RULES: Record<ChatCompletionsProvider, readonly Rule[]> = {
  openai: [openAiKnownFields, openAiMaxTokens, openAiTemperature, openAiMessageFields],
  deepseek: [deepSeekReasoningBack],
  dashscope: [dashScopeThinkingStreams],
  moonshot: [kimiReasoningBack],
  openrouter: [],
  vllm: [],
  ollama: [ollamaEffort],
  llamacpp: [llamaCppMessages],
};
