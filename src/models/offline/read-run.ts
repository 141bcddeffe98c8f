import type { ChatMessage, ChatRequest, ToolDefinition } from '../chat-model.ts';

/**
 * What the offline model can see of the run so far, from the request alone: the user's message that
 * started this run, the one before it, the calls made since with what came back, and the tools
 * offered now.
 *
 * Tool messages are read as the runtime writes them: the JSON text of the result; a failure as
 * `{"error": {"code", "message"}}`; a rejected confirmation as `{"rejected": true, "message"}`. A few
 * other spellings are accepted (`{"status": "rejected"}`, `{"error": "…"}`), and text that is not
 * JSON counts as a result.
 */

export type ToolOutcome =
  | { kind: 'done'; value: unknown }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'rejected'; message: string }
  /** No tool message answers the call. */
  | { kind: 'missing' };

export interface MadeCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  outcome: ToolOutcome;
}

export interface RunView {
  /** The user's message that started this run ('' when there is none). */
  message: string;
  /** The user's message before it, for a reply that only completes it (「R-1001」 after 「取消维修单」). */
  previousMessage: string | undefined;
  /** This run's calls, in the order they were made. */
  calls: MadeCall[];
  /** The tools offered now; empty on the summary turn after the step limit. */
  tools: readonly ToolDefinition[];
  /** The runtime's summary turn: no tools, and its own instruction after the tool results. */
  summaryTurn: boolean;
}

export function readRun(request: ChatRequest): RunView {
  const tools = request.tools ?? [];
  const messages = [...request.messages];
  // After the step limit the runtime asks for a summary with a user message of its own right after
  // the tool results, and offers no tools; the user's question is the user message before it.
  const summaryTurn =
    tools.length === 0 && messages.at(-1)?.role === 'user' && messages.at(-2)?.role === 'tool';
  if (summaryTurn) messages.pop();
  const start = findLastIndex(messages, (message) => message.role === 'user');
  const message = start === -1 ? '' : (messages[start]?.content ?? '');
  const previous = findLastIndex(messages.slice(0, Math.max(0, start)), (entry) => entry.role === 'user');
  const previousMessage = previous === -1 ? undefined : messages[previous]?.content;
  const run = messages.slice(start + 1);
  const results = new Map<string, string>();
  for (const entry of run) if (entry.role === 'tool') results.set(entry.toolCallId, entry.content);
  const calls: MadeCall[] = [];
  for (const entry of run) {
    if (entry.role !== 'assistant') continue;
    for (const call of entry.toolCalls ?? []) {
      const content = results.get(call.id);
      calls.push({
        id: call.id,
        name: call.name,
        args: parseArguments(call.arguments),
        outcome: content === undefined ? { kind: 'missing' } : readOutcome(content),
      });
    }
  }
  return { message, previousMessage, calls, tools, summaryTurn };
}

/**
 * What a tool message says of its call, however the tool or the host wrote it: the runtime's own
 * `{"error": {...}}` and `{"rejected": true}`, a host's `{"decision": "reject"}`, a result wrapped as
 * `{"status": "done", "result": …}`, or plain text (a result). Public (`runstream`): a model of one's
 * own reads its transcript with it.
 */
export function readOutcome(content: string): ToolOutcome {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    // Not JSON: a tool that answered in plain text; the demo treats the text as the result.
    return { kind: 'done', value: content };
  }
  if (!isRecord(value)) return { kind: 'done', value };
  const message = typeof value.message === 'string' ? value.message : '';
  if (value.rejected === true || value.status === 'rejected' || value.decision === 'reject') {
    return { kind: 'rejected', message: message || (typeof value.note === 'string' ? value.note : '') };
  }
  const error = value.error;
  if (isRecord(error)) {
    return {
      kind: 'failed',
      code: typeof error.code === 'string' ? error.code : 'tool_failed',
      message: typeof error.message === 'string' ? error.message : message,
    };
  }
  if (typeof error === 'string') return { kind: 'failed', code: 'tool_failed', message: error };
  if (value.ok === false || value.status === 'failed')
    return { kind: 'failed', code: 'tool_failed', message };
  if ('result' in value && (value.status === 'done' || value.ok === true)) {
    return { kind: 'done', value: value.result };
  }
  return { kind: 'done', value };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function findLastIndex(messages: readonly ChatMessage[], test: (message: ChatMessage) => boolean): number {
  for (let position = messages.length - 1; position >= 0; position -= 1) {
    const message = messages[position];
    if (message !== undefined && test(message)) return position;
  }
  return -1;
}
