import type { ChatMessage, ChatRequest, ReasoningPart, ToolDefinition } from './chat-model.ts';

/**
 * The `POST /v1/messages` body of one streamed turn, from the runtime's transcript.
 *
 * Rules cited from Anthropic's documentation:
 * - Messages API: https://platform.claude.com/docs/en/api/messages
 * - Extended thinking: https://platform.claude.com/docs/en/build-with-claude/extended-thinking
 * - Tool use: https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use
 */

/**
 * How the model thinks. `enabled` reserves `budgetTokens` (at least 1 024) for thinking; `adaptive`
 * lets the model decide, as the newest Claude models require; `disabled` says so explicitly (DeepSeek
 * and Qwen think by default). `display: 'omitted'` streams only the signature, never the text.
 */
export type AnthropicThinking =
  | { type: 'enabled'; budgetTokens: number; display?: 'summarized' | 'omitted' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' }
  | { type: 'disabled' };

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export interface AnthropicRequestBodyOptions {
  model: string;
  /**
   * Room for the answer: `max_tokens` is required by the API. With `thinking.type: 'enabled'` the
   * budget is added on top, since the documented rule is `budget_tokens < max_tokens` (thinking
   * counts against `max_tokens`). With `adaptive` thinking this one number covers both.
   */
  maxOutputTokens: number;
  thinking?: AnthropicThinking | undefined;
  /** `output_config.effort` (`low`, `medium`, `high`; DeepSeek also `max`). */
  effort?: string | undefined;
  /**
   * Send reasoning that carries no signature back as a `thinking` block with an empty signature.
   * Off for Claude, which verifies every signature and answers 400 for an unsigned thinking block.
   * On for DeepSeek, Kimi and Qwen, whose Anthropic endpoints return unsigned (or empty-signed)
   * thinking and DeepSeek's refuses a tool-loop request without it ("The `content[].thinking` in
   * the thinking mode must be passed back to the API").
   */
  sendUnsignedReasoning?: boolean | undefined;
  /** Provider-specific fields, spread first so they cannot replace what this adapter relies on. */
  extraBody?: Readonly<Record<string, unknown>> | undefined;
}

export function buildAnthropicRequestBody(
  request: ChatRequest,
  options: AnthropicRequestBodyOptions,
): Record<string, unknown> {
  const thinking = options.thinking;
  const thinkingOn = thinking !== undefined && thinking.type !== 'disabled';
  const answerTokens = request.maxOutputTokens ?? options.maxOutputTokens;
  const system = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .filter((text) => text.trim() !== '')
    .join('\n\n');
  const messages = toAnthropicMessages(request.messages, {
    sendUnsignedReasoning: options.sendUnsignedReasoning === true,
    // DeepSeek wants a thinking block on every tool-call turn of thinking mode, even an empty one;
    // with thinking switched off there is nothing to pass back.
    thinkingOn: thinking === undefined || thinking.type !== 'disabled',
  });
  return {
    ...options.extraBody,
    model: options.model,
    max_tokens: thinking?.type === 'enabled' ? thinking.budgetTokens + answerTokens : answerTokens,
    ...(system === '' ? {} : { system }),
    messages,
    ...toolFields(request.tools ?? [], messages),
    ...(thinking === undefined ? {} : { thinking: thinkingField(thinking) }),
    ...(options.effort === undefined ? {} : { output_config: { effort: options.effort } }),
    // "Thinking isn't compatible with temperature or top_k modifications" (extended thinking,
    // Feature compatibility); DeepSeek ignores it in thinking mode. Left out rather than refused.
    ...(request.temperature === undefined || thinkingOn ? {} : { temperature: request.temperature }),
    stream: true,
  };
}

function thinkingField(thinking: AnthropicThinking): Record<string, unknown> {
  switch (thinking.type) {
    case 'enabled':
      return {
        type: 'enabled',
        budget_tokens: thinking.budgetTokens,
        ...(thinking.display === undefined ? {} : { display: thinking.display }),
      };
    case 'adaptive':
      return { type: 'adaptive', ...(thinking.display === undefined ? {} : { display: thinking.display }) };
    case 'disabled':
      return { type: 'disabled' };
  }
}

/**
 * `tools` for this turn. A turn offered no tools whose transcript still holds tool calls (the summary
 * turn after the last iteration) declares the transcript's tool names with `tool_choice: none`: the
 * API refuses "Requests which include `tool_use` or `tool_result` blocks must define tools", and
 * rewriting those blocks as text would invalidate the signed thinking beside them.
 */
function toolFields(
  tools: readonly ToolDefinition[],
  messages: readonly AnthropicMessage[],
): Record<string, unknown> {
  if (tools.length > 0) return { tools: tools.map(toAnthropicTool) };
  const usedNames = new Set<string>();
  for (const message of messages)
    for (const block of message.content) if (block.type === 'tool_use') usedNames.add(block.name);
  if (usedNames.size === 0) return {};
  return {
    tools: [...usedNames].map((name) => ({ name, input_schema: { type: 'object' } })),
    tool_choice: { type: 'none' },
  };
}

export function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters };
}

interface MessageOptions {
  sendUnsignedReasoning: boolean;
  thinkingOn: boolean;
}

/**
 * The conversation without its system messages, in Anthropic's alternating shape. Tool results
 * become `tool_result` blocks of a user message, and consecutive user content (the results of one
 * turn's parallel calls, a user line after them) is one message with the results first: "tool_result
 * blocks must come FIRST", and results split over several messages teach Claude to stop calling
 * tools in parallel (tool use, "Formatting tool results").
 */
export function toAnthropicMessages(
  messages: readonly ChatMessage[],
  options: MessageOptions = { sendUnsignedReasoning: false, thinkingOn: true },
): AnthropicMessage[] {
  const result: AnthropicMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const content = contentOf(message, options);
    // The API refuses empty content; an assistant turn that said nothing adds nothing to resend.
    if (content.length === 0) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const previous = result.at(-1);
    if (role === 'user' && previous?.role === 'user') previous.content.push(...content);
    else result.push({ role, content });
  }
  return result;
}

function contentOf(message: Exclude<ChatMessage, { role: 'system' }>, options: MessageOptions) {
  switch (message.role) {
    case 'user':
      return message.content === '' ? [] : [{ type: 'text' as const, text: message.content }];
    case 'tool':
      return [{ type: 'tool_result' as const, tool_use_id: message.toolCallId, content: message.content }];
    case 'assistant':
      return assistantContent(message, options);
  }
}

/**
 * Thinking first, then text, then the calls: the order a response has them in. Signed and redacted
 * thinking goes back exactly as it came, always ("pass everything back as you received it";
 * a modified block is a 400 `invalid_request_error`). Reasoning without a signature (a turn from
 * another provider, or an endpoint that does not sign) is left out for Claude, which would refuse
 * the block; the docs allow leaving earlier thinking out, at worst thinking is off for that request.
 */
function assistantContent(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  options: MessageOptions,
): AnthropicContentBlock[] {
  const content: AnthropicContentBlock[] = [];
  const parts: readonly ReasoningPart[] =
    message.reasoningParts ?? (message.reasoning ? [{ type: 'text', text: message.reasoning }] : []);
  for (const part of parts) {
    if (part.type === 'redacted') content.push({ type: 'redacted_thinking', data: part.data });
    else if (part.signature)
      content.push({ type: 'thinking', thinking: part.text, signature: part.signature });
    else if (options.sendUnsignedReasoning && part.text !== '')
      content.push({ type: 'thinking', thinking: part.text, signature: '' });
  }
  const toolCalls = message.toolCalls ?? [];
  if (options.sendUnsignedReasoning && options.thinkingOn && content.length === 0 && toolCalls.length > 0) {
    content.push({ type: 'thinking', thinking: '', signature: '' });
  }
  // Whitespace-only text blocks are refused ("text content blocks must contain non-whitespace text").
  if (message.content.trim() !== '') content.push({ type: 'text', text: message.content });
  for (const call of toolCalls) {
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
  }
  return content;
}

/**
 * `input` must be an object. Arguments that are empty (a call without parameters) or that never
 * parsed (the runtime failed that call and told the model so in its result) go back as `{}`.
 */
function toolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
