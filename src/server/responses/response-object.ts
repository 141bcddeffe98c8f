import type { Block, MessageState, TokenUsage, ToolBlock } from '../../protocol/index.ts';

/**
 * The OpenAI-style Response object and its output items, built from a run's reduced message. Field
 * names follow the OpenAI Responses API where it has one; what it lacks is an extension named
 * `runstream_*` (server-side tool calls, confirmation cards, error notices) or a documented extra
 * field (`conversation_id`, `trace_id`, `required_action`). docs/responses-api.md has the mapping.
 */

export type ResponseStatus =
  | 'in_progress'
  | 'requires_action'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'incomplete';

export interface FunctionToolDeclaration {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict?: boolean;
}

/**
 * OpenAI's `usage` of a response. Both details are required numbers in the official `openai`
 * package's `ResponseUsage` type and in OpenAI's own answers, so a detail the provider did not report
 * is 0 here; the native `usage` (and `runstream.step.finished`) keeps "not reported" apart.
 */
export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** One model call's usage on `runstream.step.finished`: OpenAI's names, details only where reported. */
export interface StepUsage {
  input_tokens: number;
  input_tokens_details?: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details?: { reasoning_tokens: number };
  total_tokens: number;
}

/** An answer block as OpenAI's assistant message item (both shapes). */
export interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: { type: 'output_text'; text: string; annotations: unknown[] }[];
}

/** A reasoning block as OpenAI's reasoning item (both shapes). */
export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  summary: { type: 'summary_text'; text: string }[];
  content: { type: 'reasoning_text'; text: string }[];
}

export type OutputItem =
  | MessageItem
  | ReasoningItem
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: 'in_progress' | 'completed' | 'incomplete';
      /**
       * Extension: why the call ended without a host result (arguments that fail the tool's schema,
       * a policy's denial, the host's own error, a cancel); the item is then `incomplete`.
       */
      failure?: { code: string; message: string };
    }
  | {
      type: 'runstream_tool_call';
      id: string;
      call_id: string;
      name: string;
      title: string;
      arguments: string;
      status: ToolBlock['status'];
      output?: unknown;
      failure?: { code: string; message: string };
    }
  | {
      type: 'runstream_confirmation';
      id: string;
      call_id: string;
      title: string;
      description: string;
      details: { label: string; value: string }[];
      status: 'pending' | 'approved' | 'rejected' | 'expired';
    }
  | { type: 'runstream_error'; id: string; status: 'completed'; text: string };

export interface RequiredAction {
  type: 'submit_tool_outputs' | 'confirm';
  /** For `submit_tool_outputs`: the host calls to answer with `POST /v1/responses/{id}/tool_results`. */
  tool_calls: { call_id: string; name: string; arguments: string }[];
}

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: null;
  instructions: string | null;
  model: string;
  output: OutputItem[];
  output_text: string;
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  tools: FunctionToolDeclaration[];
  tool_choice: 'auto';
  text: { format: { type: 'text' } };
  temperature: null;
  top_p: null;
  truncation: 'disabled';
  usage: ResponseUsage | null;
  metadata: Record<string, string>;
  /** Extensions. */
  conversation_id: string | null;
  trace_id: string | null;
  required_action: RequiredAction | null;
  cancel_reason: string | null;
}

/** What a response knows besides its message: fixed when it starts. */
export interface ResponseContext {
  id: string;
  createdAt: number;
  model: string;
  instructions: string | null;
  tools: FunctionToolDeclaration[];
  previousResponseId: string | null;
  conversationId: string | null;
  traceId: string | null;
  metadata: Record<string, string>;
}

/** Item ids are derived from block ids, so a replay of the same run names the same items. */
export function itemIdOf(block: Pick<Block, 'blockId' | 'kind'>, hostTool: boolean): string {
  const prefix =
    block.kind === 'answer'
      ? 'msg'
      : block.kind === 'reasoning'
        ? 'rs'
        : block.kind === 'tool'
          ? hostTool
            ? 'fc'
            : 'tc'
          : block.kind === 'confirm'
            ? 'cf'
            : 'err';
  return `${prefix}_${block.blockId}`;
}

export function isHostToolBlock(block: Block, hostToolNames: ReadonlySet<string>): block is ToolBlock {
  return block.kind === 'tool' && hostToolNames.has(block.name);
}

/** A block as an output item: text blocks as messages or reasoning, tool calls, cards, errors. */
export function blockToItem(block: Block, hostToolNames: ReadonlySet<string>): OutputItem {
  const open = block.endedAt === null;
  switch (block.kind) {
    case 'answer':
      return {
        type: 'message',
        id: itemIdOf(block, false),
        role: 'assistant',
        status: open ? 'in_progress' : block.status === 'done' ? 'completed' : 'incomplete',
        content: [{ type: 'output_text', text: block.text, annotations: [] }],
      };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: itemIdOf(block, false),
        status: open ? 'in_progress' : block.status === 'done' ? 'completed' : 'incomplete',
        summary: [],
        content: [{ type: 'reasoning_text', text: block.text }],
      };
    case 'error':
      return { type: 'runstream_error', id: itemIdOf(block, false), status: 'completed', text: block.text };
    case 'tool': {
      const argumentsText = block.args === undefined ? block.argsText : JSON.stringify(block.args);
      if (hostToolNames.has(block.name))
        return {
          type: 'function_call',
          id: itemIdOf(block, true),
          call_id: block.toolCallId,
          name: block.name,
          arguments: argumentsText,
          status: hostCallStatus(block),
          ...(block.error === undefined ? {} : { failure: block.error }),
        };
      return {
        type: 'runstream_tool_call',
        id: itemIdOf(block, false),
        call_id: block.toolCallId,
        name: block.name,
        title: block.title,
        arguments: argumentsText,
        status: block.status,
        ...(block.result === undefined ? {} : { output: block.result }),
        ...(block.error === undefined ? {} : { failure: block.error }),
      };
    }
    case 'confirm':
      return {
        type: 'runstream_confirmation',
        id: itemIdOf(block, false),
        call_id: block.toolCallId,
        title: block.title,
        description: block.description,
        details: block.details,
        status: block.status,
      };
  }
}

/**
 * A host call is `in_progress` while the model writes its arguments, `completed` once they are
 * valid (waiting for the host, or answered), `incomplete` when it ended without a host output.
 */
function hostCallStatus(block: ToolBlock): 'in_progress' | 'completed' | 'incomplete' {
  if (block.status === 'pending') return block.args === undefined ? 'in_progress' : 'completed';
  return block.status === 'running' || block.status === 'done' ? 'completed' : 'incomplete';
}

export function responseStatusOf(state: MessageState): ResponseStatus {
  switch (state.status) {
    case 'idle':
    case 'running':
      return 'in_progress';
    case 'paused':
      return 'requires_action';
    case 'completed':
      return 'completed';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
    case 'interrupted':
      return 'failed';
  }
}

/** A run's (or a stretch's) usage as OpenAI's `usage`; `null` when no model call reported any. */
export function usageOf(usage: TokenUsage | null | undefined): ResponseUsage | null {
  if (usage === null || usage === undefined) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function stepUsageOf(usage: TokenUsage): StepUsage {
  return {
    input_tokens: usage.inputTokens,
    ...(usage.cachedInputTokens === undefined
      ? {}
      : { input_tokens_details: { cached_tokens: usage.cachedInputTokens } }),
    output_tokens: usage.outputTokens,
    ...(usage.reasoningTokens === undefined
      ? {}
      : { output_tokens_details: { reasoning_tokens: usage.reasoningTokens } }),
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** The Response object for a run's message as it stands. */
export function buildResponseObject(context: ResponseContext, state: MessageState): ResponseObject {
  const hostToolNames = new Set(context.tools.map((tool) => tool.name));
  const output = state.blocks.map((block) => blockToItem(block, hostToolNames));
  const status = responseStatusOf(state);
  return {
    id: context.id,
    object: 'response',
    created_at: Math.floor(context.createdAt / 1000),
    status,
    error:
      status === 'failed'
        ? (state.error ?? { code: state.status, message: state.finishReason ?? 'the run failed' })
        : null,
    incomplete_details: null,
    instructions: context.instructions,
    model: context.model,
    output,
    output_text: state.blocks
      .filter((block) => block.kind === 'answer')
      .map((block) => (block.kind === 'answer' ? block.text : ''))
      .join(''),
    parallel_tool_calls: true,
    previous_response_id: context.previousResponseId,
    tools: context.tools,
    tool_choice: 'auto',
    text: { format: { type: 'text' } },
    temperature: null,
    top_p: null,
    truncation: 'disabled',
    // As OpenAI has it: none while in progress; the run's total so far once it waits or has ended.
    usage: status === 'in_progress' ? null : usageOf(state.usage),
    metadata: context.metadata,
    conversation_id: context.conversationId,
    trace_id: context.traceId,
    required_action: requiredActionOf(state),
    cancel_reason: state.status === 'cancelled' ? state.finishReason : null,
  };
}

export function requiredActionOf(state: MessageState): RequiredAction | null {
  if (state.status !== 'paused' || state.pause === null) return null;
  return {
    type: state.pause.reason === 'tool_result' ? 'submit_tool_outputs' : 'confirm',
    tool_calls: state.pause.pending.map((call) => ({
      call_id: call.toolCallId,
      name: call.name,
      arguments: JSON.stringify(call.args ?? {}),
    })),
  };
}
