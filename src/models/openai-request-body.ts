import type { ChatMessage, ChatRequest, ToolDefinition } from './chat-model.ts';
import {
  type ProviderProfile,
  type ReasoningEffort,
  type ReasoningHistoryRule,
  reasoningControlFields,
  type ThinkingSetting,
} from './provider-profile.ts';
import { PROVIDER_PROFILES } from './provider-profiles.ts';

export type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: OpenAiToolCall[];
      reasoning_content?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAiTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface RequestBodyOptions {
  model: string;
  /** The provider's quirks; plain OpenAI-compatible behaviour when absent. */
  profile?: ProviderProfile | undefined;
  thinking?: ThinkingSetting | undefined;
  reasoningEffort?: ReasoningEffort | undefined;
  /** The output limit when the request sets none. */
  maxOutputTokens?: number | undefined;
  /** Overrides the profile's rule for sending reasoning back (a gateway in front of DeepSeek …). */
  reasoningHistory?: ReasoningHistoryRule | undefined;
  /** Provider-specific fields this adapter does not model (`thinking_budget`, `top_k` …). */
  extraBody?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The `POST /chat/completions` body for one streamed turn, shaped by the provider's profile.
 *
 * `extraBody` is spread first, so it can add provider fields but cannot switch off streaming or
 * replace the messages this adapter depends on; the thinking and effort fields come last because
 * they are explicit settings.
 */
export function buildRequestBody(request: ChatRequest, options: RequestBodyOptions): Record<string, unknown> {
  const profile = options.profile ?? PROVIDER_PROFILES['openai-compatible'];
  const tools = request.tools ?? [];
  const maxOutputTokens = request.maxOutputTokens ?? options.maxOutputTokens;
  const reasoningAskedFor =
    options.reasoningEffort !== undefined || (options.thinking === 'on' && profile.thinking !== undefined);
  const temperature =
    profile.omitTemperatureWhenReasoning && reasoningAskedFor ? undefined : request.temperature;
  return {
    ...options.extraBody,
    model: options.model,
    messages: toOpenAiMessages(request.messages, options.reasoningHistory ?? profile.reasoningHistory),
    ...(tools.length === 0 ? {} : { tools: tools.map(toOpenAiTool) }),
    ...(tools.length > 0 && profile.parallelToolCalls ? { parallel_tool_calls: true } : {}),
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxOutputTokens === undefined ? {} : { [profile.maxTokensField]: maxOutputTokens }),
    stream: true,
    // Without it most servers stream no token counts at all.
    ...(profile.includeUsage ? { stream_options: { include_usage: true } } : {}),
    ...reasoningControlFields(profile, options.thinking, options.reasoningEffort),
  };
}

/**
 * The messages in OpenAI's shape, each assistant message with its reasoning where the rule asks for
 * it. Reasoning goes back only where the provider needs it: elsewhere it is refused (OpenAI),
 * ignored, or billed as input for nothing.
 */
export function toOpenAiMessages(
  messages: readonly ChatMessage[],
  reasoningHistory: ReasoningHistoryRule = 'never',
): OpenAiMessage[] {
  const withReasoning = assistantsWithReasoning(messages, reasoningHistory);
  return messages.map((message, position) => toOpenAiMessage(message, withReasoning.has(position)));
}

/** One message in OpenAI's shape; an assistant's reasoning only when `withReasoning`. */
export function toOpenAiMessage(message: ChatMessage, withReasoning = false): OpenAiMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      return {
        role: 'assistant',
        // The API's own form for "only tool calls": null content rather than an empty string.
        content: message.content === '' && toolCalls.length > 0 ? null : message.content,
        ...(toolCalls.length === 0
          ? {}
          : {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }),
        // A tool-call turn whose model streamed no reasoning still carries the field, empty: the
        // providers that want reasoning back check that it is there (an empty one is accepted;
        // https://github.com/anomalyco/opencode/pull/24150), and there is nothing else to send.
        ...(withReasoning && (message.reasoning || toolCalls.length > 0)
          ? { reasoning_content: message.reasoning ?? '' }
          : {}),
      };
    }
  }
}

export function toOpenAiTool(tool: ToolDefinition): OpenAiTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/** The positions of the assistant messages whose reasoning goes back under `rule`. */
function assistantsWithReasoning(messages: readonly ChatMessage[], rule: ReasoningHistoryRule): Set<number> {
  const positions = new Set<number>();
  if (rule === 'never') return positions;
  // A user turn: the messages after one user message up to the next. DeepSeek's rule looks at the
  // whole turn, so a turn's final answer keeps its reasoning too once the turn made a tool call.
  let turn: number[] = [];
  let turnCalledTools = false;
  const closeTurn = () => {
    if (rule === 'always' || turnCalledTools) for (const position of turn) positions.add(position);
    turn = [];
    turnCalledTools = false;
  };
  messages.forEach((message, position) => {
    if (message.role === 'user') {
      closeTurn();
      return;
    }
    if (message.role !== 'assistant') return;
    if (message.reasoning || (message.toolCalls?.length ?? 0) > 0) turn.push(position);
    if ((message.toolCalls?.length ?? 0) > 0) turnCalledTools = true;
  });
  closeTurn();
  return positions;
}
