import type { z } from 'zod';

/** Who and what a tool call runs for; tools must honour `signal` (a stop, a timeout). */
export interface ToolContext {
  runId: string;
  conversationId: string;
  /** The run's owner: tools act for this user only (their orders, their account). */
  userId: string;
  toolCallId: string;
  /** The trace id the run was started under, to pass on to the services a tool calls. */
  traceId?: string;
  signal: AbortSignal;
}

/** What a confirmation card shows before a write tool runs: the action and its object. */
export interface ConfirmationRequest {
  /** The action, e.g. 取消订单. */
  title: string;
  /** The object in a sentence, e.g. 订单 88235 · Apple Watch Series 12. */
  description: string;
  details: { label: string; value: string }[];
}

/**
 * A tool the agent may call. Arguments are validated with `parameters` before `execute` runs; a
 * failure becomes a failed tool block that the model sees, not a crash. Write tools (`effect:
 * "write"`) never run before the run's owner approves the confirmation card `confirm` describes.
 */
export interface Tool<Args = unknown, Result = unknown> {
  /** The machine name the model calls, e.g. `cancel_order`. */
  name: string;
  /** What a person reads on the tool row, e.g. 取消订单. */
  title: string;
  /** What the model reads to decide when to call it. */
  description: string;
  parameters: z.ZodType<Args>;
  /**
   * The JSON Schema the model is shown, when the tool was declared with one (an MCP tool's
   * `inputSchema`); by default it is derived from `parameters`.
   */
  inputSchema?: Record<string, unknown>;
  effect: 'read' | 'write';
  /**
   * Write tools: whether this call needs the owner's approval, decided from its arguments (e.g. only
   * refunds above an amount). Absent: every call of a write tool does.
   */
  needsApproval?(args: Args, context: ToolContext): boolean | Promise<boolean>;
  /** Default 30 000. */
  timeoutMs?: number;
  /**
   * When set, the tool stays hidden from the model until the skill of that name is loaded (a skill
   * unlocks the tools its handbook explains).
   */
  requiresSkill?: string;
  /** Write tools: what to show on the card; may look things up (the order's item) and may refuse. */
  confirm?(args: Args, context: ToolContext): Promise<ConfirmationRequest>;
  /**
   * Run the call. Its result, as JSON, may have at most `MAX_TOOL_RESULT_CHARS` (1 MiB) characters;
   * a larger one fails the call as `tool_result_too_large`.
   */
  execute(args: Args, context: ToolContext): Promise<Result>;
}

/** Any tool, whatever its argument and result types, as the registry holds them. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type.
export type AnyTool = Tool<any, unknown>;

/** A tool's own refusal, with a message for the model (e.g. 订单已发货，不能直接取消). */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
