import type { Block, ConfirmBlock, MessageState, TextBlock, ToolBlock } from '../../protocol/index.ts';
import type { MessageItem, ReasoningItem } from './response-object.ts';

/**
 * The output items of the plain (OpenAI-compatible) shape: only item types the official `openai`
 * SDKs and the Agents SDK know. Server tools are `mcp_call` items of the server `runstream`, a
 * confirmation is an `mcp_approval_request` answered by an `mcp_approval_response` input item, an
 * error block is an assistant `message`. Item ids name the run as well as the block, so they are
 * unique across responses and a client that echoes them back names the run (see `parseItemId`).
 */

/** The `server_label` of every server-side tool call in the plain shape. */
export const PLAIN_SERVER_LABEL = 'runstream';

export type PlainOutputItem =
  | MessageItem
  | ReasoningItem
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: 'in_progress' | 'completed';
    }
  | {
      type: 'mcp_call';
      id: string;
      server_label: string;
      name: string;
      arguments: string;
      output: string | null;
      error: string | null;
      status: 'in_progress' | 'completed' | 'failed';
      approval_request_id: string | null;
    }
  | {
      type: 'mcp_approval_request';
      id: string;
      server_label: string;
      name: string;
      arguments: string;
    };

const PREFIX = {
  answer: 'msg',
  error: 'msg',
  reasoning: 'rs',
  host: 'fc',
  tool: 'mcp',
  confirm: 'mcpr',
} as const;

/** A plain item id: `<prefix>_<runId>.<blockId>` (run and block ids hold no dots). */
export function plainItemId(runId: string, blockId: string, kind: keyof typeof PREFIX): string {
  return `${PREFIX[kind]}_${runId}.${blockId}`;
}

/** The run and block a plain item id names, for the prefixes given, or `undefined`. */
export function parseItemId(
  id: string,
  prefix: 'fc' | 'mcpr',
): { runId: string; blockId: string } | undefined {
  if (!id.startsWith(`${prefix}_`)) return undefined;
  const rest = id.slice(prefix.length + 1);
  const dot = rest.lastIndexOf('.');
  if (dot <= 0 || dot === rest.length - 1) return undefined;
  return { runId: rest.slice(0, dot), blockId: rest.slice(dot + 1) };
}

export function textItem(runId: string, block: TextBlock): PlainOutputItem {
  const status =
    block.endedAt === null ? 'in_progress' : block.status === 'done' ? 'completed' : 'incomplete';
  if (block.kind === 'reasoning')
    return {
      type: 'reasoning',
      id: plainItemId(runId, block.blockId, 'reasoning'),
      status,
      summary: [],
      content: [{ type: 'reasoning_text', text: block.text }],
    };
  return {
    type: 'message',
    id: plainItemId(runId, block.blockId, block.kind === 'error' ? 'error' : 'answer'),
    role: 'assistant',
    // An error notice is a finished message of its own.
    status: block.kind === 'error' ? 'completed' : status,
    content: [{ type: 'output_text', text: block.text, annotations: [] }],
  };
}

export function argumentsOf(block: ToolBlock): string {
  return block.args === undefined ? block.argsText : JSON.stringify(block.args);
}

export function functionCallItem(runId: string, block: ToolBlock): PlainOutputItem {
  return {
    type: 'function_call',
    id: plainItemId(runId, block.blockId, 'host'),
    call_id: block.toolCallId,
    name: block.name,
    arguments: argumentsOf(block),
    status: 'completed',
  };
}

/** A server tool's call; `approvalId` names the approval request a write waited for. */
export function mcpCallItem(
  runId: string,
  block: ToolBlock,
  approvalId: string | null,
): PlainOutputItem & { type: 'mcp_call' } {
  const failed =
    block.status === 'failed' ||
    block.status === 'rejected' ||
    block.status === 'cancelled' ||
    block.status === 'interrupted';
  const errorText =
    block.error?.message ??
    (block.status === 'rejected'
      ? 'the owner rejected this call'
      : failed
        ? `the call ended ${block.status}`
        : null);
  return {
    type: 'mcp_call',
    id: plainItemId(runId, block.blockId, 'tool'),
    server_label: PLAIN_SERVER_LABEL,
    name: block.name,
    arguments: argumentsOf(block),
    output:
      block.result === undefined
        ? null
        : typeof block.result === 'string'
          ? block.result
          : JSON.stringify(block.result),
    error: failed ? errorText : null,
    status: block.endedAt === null ? 'in_progress' : failed ? 'failed' : 'completed',
    approval_request_id: approvalId,
  };
}

export function approvalRequestItem(runId: string, card: ConfirmBlock, call: ToolBlock | undefined) {
  return {
    type: 'mcp_approval_request' as const,
    id: plainItemId(runId, card.blockId, 'confirm'),
    server_label: PLAIN_SERVER_LABEL,
    name: call?.name ?? card.title,
    arguments: call === undefined ? '{}' : argumentsOf(call),
  };
}

/** The tool block a confirmation card guards. */
export function guardedCall(state: MessageState, card: ConfirmBlock): ToolBlock | undefined {
  return state.blocks.find(
    (block): block is ToolBlock => block.kind === 'tool' && block.toolCallId === card.toolCallId,
  );
}

export function findBlock(state: MessageState, blockId: string): Block | undefined {
  const blocks = state.blocks;
  for (let index = blocks.length - 1; index >= 0; index -= 1)
    if ((blocks[index] as Block).blockId === blockId) return blocks[index];
  return undefined;
}

/** The events of a message item that arrives whole (an error notice), as OpenAI streams one. */
export function wholeMessageEvents(
  item: PlainOutputItem,
  outputIndex: number,
): [string, Record<string, unknown>][] {
  const text = item.type === 'message' ? item.content.map((part) => part.text).join('') : '';
  const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
  const part = { type: 'output_text', text, annotations: [] };
  return [
    ['response.output_item.added', { output_index: outputIndex, item: { ...item, content: [] } }],
    ['response.content_part.added', { ...at, part: { ...part, text: '' } }],
    ['response.output_text.delta', { ...at, delta: text, logprobs: [] }],
    ['response.output_text.done', { ...at, text, logprobs: [] }],
    ['response.content_part.done', { ...at, part }],
    ['response.output_item.done', { output_index: outputIndex, item }],
  ];
}

/** The events that finish a streamed text item (its text arrived in deltas). */
export function textDoneEvents(
  item: PlainOutputItem,
  outputIndex: number,
): [string, Record<string, unknown>][] {
  if (item.type !== 'message' && item.type !== 'reasoning') return [];
  const text = item.content.map((part) => part.text).join('');
  const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
  const done: [string, Record<string, unknown>][] =
    item.type === 'message'
      ? [
          ['response.output_text.done', { ...at, text, logprobs: [] }],
          ['response.content_part.done', { ...at, part: { type: 'output_text', text, annotations: [] } }],
        ]
      : [
          ['response.reasoning_text.done', { ...at, text }],
          ['response.content_part.done', { ...at, part: { type: 'reasoning_text', text } }],
        ];
  return [...done, ['response.output_item.done', { output_index: outputIndex, item }]];
}

/** The events of a host call, sent whole once the run waits for it. */
export function functionCallEvents(
  item: PlainOutputItem,
  outputIndex: number,
): [string, Record<string, unknown>][] {
  if (item.type !== 'function_call') return [];
  const at = { item_id: item.id, output_index: outputIndex };
  return [
    [
      'response.output_item.added',
      { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } },
    ],
    ['response.function_call_arguments.delta', { ...at, delta: item.arguments }],
    ['response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }],
    ['response.output_item.done', { output_index: outputIndex, item }],
  ];
}
