import type { ChatMessage, ChatRequest, ToolDefinition } from './chat-model.ts';

/** Where an assistant's earlier reasoning goes when it is sent back; see `sendReasoningAs`. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

export type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: OpenAiToolCall[];
      reasoning_content?: string;
      reasoning?: string;
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
  /** Absent by default: earlier reasoning is not sent back (see `toOpenAiMessage`). */
  sendReasoningAs?: ReasoningField | undefined;
  /** Provider-specific fields (`enable_thinking`, `reasoning`, `max_completion_tokens` …). */
  extraBody?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The `POST /chat/completions` body for one streamed turn.
 *
 * `extraBody` is spread first, so it can add provider fields but cannot switch off streaming or
 * replace the messages this adapter depends on. `maxOutputTokens` goes out as `max_tokens`, the name
 * every compatible server knows; OpenAI's reasoning models want `max_completion_tokens`, which
 * `extraBody` can carry.
 */
export function buildRequestBody(request: ChatRequest, options: RequestBodyOptions): Record<string, unknown> {
  const tools = request.tools ?? [];
  return {
    ...options.extraBody,
    model: options.model,
    messages: request.messages.map((message) => toOpenAiMessage(message, options.sendReasoningAs)),
    ...(tools.length === 0 ? {} : { tools: tools.map(toOpenAiTool) }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
    stream: true,
    // Without it the stream carries no token counts at all.
    stream_options: { include_usage: true },
  };
}

/**
 * One message in OpenAI's shape.
 *
 * An assistant's `reasoning` is not sent back unless `sendReasoningAs` asks for it: DeepSeek's
 * reasoner answers 400 when `reasoning_content` appears in input messages, the other providers ignore
 * it or bill it as input tokens, and the model does not need its old thoughts to continue. The few
 * setups that want it back (some thinking-mode tool loops) opt in with `sendReasoningAs`.
 */
export function toOpenAiMessage(message: ChatMessage, sendReasoningAs?: ReasoningField): OpenAiMessage {
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
        ...(sendReasoningAs === undefined || !message.reasoning
          ? {}
          : { [sendReasoningAs]: message.reasoning }),
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
