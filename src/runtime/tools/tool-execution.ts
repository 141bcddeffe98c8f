import { z } from 'zod';
import type { ToolCallRequest } from '../../models/index.ts';
import type { AgentOptions } from '../agent/agent-options.ts';
import { messageOf } from '../agent/message-of.ts';
import { formatMessage, RUN_MESSAGES, type RunMessages } from '../agent/run-messages.ts';
import type { RunBlocks } from '../log/run-blocks.ts';
import type { OpenToolCalls, ToolClassification } from './open-tool-calls.ts';
import { type AnyTool, type ToolContext, ToolError } from './tool.ts';
import { type ArgsValidation, applyToolPolicies } from './tool-policy.ts';

const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/**
 * The largest result a tool may return, in characters of its JSON. A result goes onto one event
 * and into the model's transcript: 10 MB on one event is past the 8 MiB an SSE frame may have in
 * the protocol's own decoder, so every reader of the run (the page, the SDK, replays) would fail on
 * it, and no model reads that much anyway. Host tool results are held to the same size by the body
 * limit of their submission (1 MiB).
 */
export const MAX_TOOL_RESULT_CHARS = 1024 * 1024;

type ValidateArgs = (args: unknown) => ArgsValidation;
/** The arguments a call goes on with, or the tool message of its failure. */
type Vetted = { args: unknown } | { failed: string };

/**
 * Server tool execution: a call's arguments validated and vetted by the policies, the tool run with
 * a timeout and the run's signal, its block and audit entry ended with the outcome.
 */
export class ToolExecution {
  readonly #options: Pick<AgentOptions, 'log' | 'signal' | 'context' | 'policies' | 'messages'>;

  get #messages(): RunMessages {
    return this.#options.messages ?? RUN_MESSAGES['zh-CN'];
  }
  readonly #blocks: RunBlocks;
  readonly #calls: OpenToolCalls;
  readonly #classify: (name: string) => ToolClassification;

  constructor(
    options: Pick<AgentOptions, 'log' | 'signal' | 'context' | 'policies' | 'messages'>,
    blocks: RunBlocks,
    calls: OpenToolCalls,
    classify: (name: string) => ToolClassification,
  ) {
    this.#options = options;
    this.#blocks = blocks;
    this.#calls = calls;
    this.#classify = classify;
  }

  /**
   * Validate a call's arguments with `validate`, then vet them: arguments that do not validate fail
   * the block (showing them) as `invalid_arguments`; otherwise what `vet` makes of them.
   */
  async validateAndVet(
    request: ToolCallRequest,
    blockId: string,
    rawArgs: unknown,
    validate: ValidateArgs,
  ): Promise<Vetted> {
    const parsed = validate(rawArgs);
    if (!parsed.success) {
      this.#options.log.append({
        type: 'block.updated',
        blockId,
        kind: 'tool',
        toolCallId: request.id,
        args: rawArgs,
      });
      return { failed: this.fail(request.id, blockId, 'invalid_arguments', parsed.error) };
    }
    return this.vet(request, blockId, parsed.data, validate);
  }

  /**
   * Run the policies over a call whose arguments validated. A deny (or a rewrite the tool's schema
   * refuses) fails the block with a message the model reads; otherwise the arguments to use.
   */
  async vet(
    request: ToolCallRequest,
    blockId: string,
    args: unknown,
    validate: ValidateArgs,
  ): Promise<Vetted> {
    const { log, context, signal } = this.#options;
    const policies = this.#options.policies ?? [];
    this.#calls.setArgs(request.id, args);
    if (policies.length === 0) return { args };
    const { executor, effect } = this.#classify(request.name);
    const outcome = await applyToolPolicies(
      policies,
      {
        runId: context.runId,
        conversationId: context.conversationId,
        toolCallId: request.id,
        name: request.name,
        args,
        userId: context.userId,
        ...(context.traceId !== undefined ? { traceId: context.traceId } : {}),
        face: context.face ?? 'chat',
        executor,
        effect,
      },
      validate,
    );
    signal.throwIfAborted();
    const open = this.#calls.get(request.id);
    if (open !== undefined) {
      open.args = outcome.args;
      open.audit = {
        decision: outcome.decision === 'invalid_rewrite' ? 'rewrite' : outcome.decision,
        openedAt: Date.now(),
        ...(outcome.policy !== undefined ? { policy: outcome.policy } : {}),
        ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
        ...(outcome.originalArgs !== undefined ? { originalArgs: outcome.originalArgs } : {}),
      };
    }
    if (outcome.decision === 'deny') {
      log.append({
        type: 'block.updated',
        blockId,
        kind: 'tool',
        toolCallId: request.id,
        args: outcome.args,
      });
      return { failed: this.fail(request.id, blockId, 'tool_denied', outcome.reason, 0, 'denied') };
    }
    if (outcome.decision === 'invalid_rewrite') {
      log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args });
      return { failed: this.fail(request.id, blockId, 'policy_rewrite_invalid', outcome.reason) };
    }
    return { args: outcome.args };
  }

  async run(tool: AnyTool, toolCallId: string, blockId: string, args: unknown): Promise<string> {
    const { log, signal } = this.#options;
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId, status: 'running' });
    const started = performance.now();
    const timeout = AbortSignal.timeout(tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const toolSignal = AbortSignal.any([signal, timeout]);
    try {
      const result = await raceAbort(
        tool.execute(args, this.toolContext(toolCallId, toolSignal)),
        toolSignal,
      );
      const content = JSON.stringify(result ?? null) ?? 'null';
      if (content.length > MAX_TOOL_RESULT_CHARS)
        return this.fail(
          toolCallId,
          blockId,
          'tool_result_too_large',
          formatMessage(this.#messages.toolResultTooLarge, {
            chars: content.length,
            limit: MAX_TOOL_RESULT_CHARS,
          }),
          performance.now() - started,
        );
      this.showResult(toolCallId, blockId, result ?? null);
      const durationMs = performance.now() - started;
      this.#blocks.endBlock(blockId, undefined, durationMs);
      this.#calls.audit(toolCallId, 'done', { durationMs });
      return content;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const timedOut = timeout.aborted;
      const code = timedOut ? 'tool_timeout' : error instanceof ToolError ? error.code : 'tool_failed';
      const message = timedOut
        ? formatMessage(this.#messages.toolTimedOut, { timeoutMs: tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS })
        : messageOf(error);
      return this.fail(
        toolCallId,
        blockId,
        code,
        message,
        performance.now() - started,
        timedOut ? 'timeout' : 'failed',
      );
    }
  }

  /** Show a call's result on its tool block; callers end the block, each timing it its own way. */
  showResult(toolCallId: string, blockId: string, result: unknown): void {
    this.#options.log.append({
      type: 'block.updated',
      blockId,
      kind: 'tool',
      toolCallId,
      status: 'done',
      result,
    });
  }

  /** A failed call: the block says why, and so does the tool message the model reads next. */
  fail(
    toolCallId: string,
    blockId: string,
    code: string,
    message: string,
    durationMs = 0,
    outcome: 'failed' | 'denied' | 'timeout' = 'failed',
  ): string {
    this.#options.log.append({
      type: 'block.updated',
      blockId,
      kind: 'tool',
      toolCallId,
      status: 'failed',
      error: { code, message },
    });
    this.#blocks.endBlock(blockId, undefined, durationMs);
    this.#calls.audit(toolCallId, outcome, {
      ...(outcome === 'denied' ? {} : { error: `${code}: ${message}` }),
      ...(outcome === 'denied' ? {} : { durationMs }),
    });
    return JSON.stringify({ error: { code, message } });
  }

  toolContext(toolCallId: string, signal: AbortSignal): ToolContext {
    const { context } = this.#options;
    return {
      runId: context.runId,
      conversationId: context.conversationId,
      userId: context.userId,
      toolCallId,
      ...(context.traceId !== undefined ? { traceId: context.traceId } : {}),
      signal,
    };
  }
}

export function validateWith(schema: z.ZodType, args: unknown): ArgsValidation {
  const parsed = schema.safeParse(args);
  return parsed.success
    ? { success: true, data: parsed.data }
    : { success: false, error: z.prettifyError(parsed.error) };
}

/** A tool that ignores its signal must not hold the run past its timeout or a stop. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
