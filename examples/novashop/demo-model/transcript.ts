import {
  type ChatMessage,
  type ChatRequest,
  readToolOutcome as readOutcome,
  type ToolDefinition,
  type ToolOutcome,
} from 'runstream';

/**
 * What the demo model can see of the run so far: the shopper's question, the calls it already made
 * in this run with what came back, and which tools it may call now.
 *
 * Tool messages are read as the runtime writes them: the JSON text of the result; a failure as
 * `{"error": {"code", "message"}}`; a rejected confirmation as `{"rejected": true, "message"}`.
 * A few other spellings are accepted too (`{"status": "rejected"}`, `{"error": "…"}`, a result
 * wrapped as `{"status": "done", "result": …}`), and text that is not JSON counts as a result.
 */

export type { ToolOutcome } from 'runstream';

export interface MadeCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  outcome: ToolOutcome;
}

export interface Transcript {
  /** The shopper's message that started this run ('' when there is none). */
  question: string;
  /** This run's tool calls, in the order they were made. */
  calls: MadeCall[];
  /** Tools the model may call now; empty on the summary turn. */
  visibleTools: ReadonlySet<string>;
  /** The same tools with their descriptions and parameter schemas (host tools are read from these). */
  tools: readonly ToolDefinition[];
  /** The text of each tool message of this run, by call id, exactly as the runtime or host wrote it. */
  contents: ReadonlyMap<string, string>;
}

export function readTranscript(request: ChatRequest): Transcript {
  const visibleTools = new Set((request.tools ?? []).map((tool) => tool.name));
  const messages = [...request.messages];
  // The summary turn after max iterations may end with the runtime's own instruction (a user
  // message right after the tool results): the shopper's question is the user message before it.
  if (visibleTools.size === 0 && messages.length > 1) {
    const last = messages.at(-1);
    const beforeLast = messages.at(-2);
    if (last?.role === 'user' && beforeLast !== undefined && beforeLast.role !== 'user') messages.pop();
  }
  const start = findLastIndex(messages, (message) => message.role === 'user');
  const question = start === -1 ? '' : (messages[start]?.content ?? '');
  const run = messages.slice(start + 1);
  const results = new Map<string, string>();
  for (const message of run) if (message.role === 'tool') results.set(message.toolCallId, message.content);
  const calls: MadeCall[] = [];
  for (const message of run) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const content = results.get(call.id);
      calls.push({
        id: call.id,
        name: call.name,
        args: parseArguments(call.arguments),
        outcome: content === undefined ? { kind: 'missing' } : readOutcome(content),
      });
    }
  }
  return { question, calls, visibleTools, tools: request.tools ?? [], contents: results };
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
