import { z } from 'zod';
import type { ChatMessage, ChatModel, ToolCallRequest, ToolDefinition } from '../models/index.ts';
import { ModelError } from '../models/index.ts';
import type { PendingCall } from '../protocol/index.ts';
import type { HostToolResult } from '../store/index.ts';
import { type HostToolDefinition, type HostToolValidator, hostToolValidator } from './host-tool.ts';
import { RunCancelled } from './run-cancelled.ts';
import type { RunLog } from './run-log.ts';
import type { Skill } from './skill.ts';
import { type AnyTool, type ToolContext, ToolError } from './tool.ts';
import {
  type AuditedCall,
  type PendingAudit,
  type ToolAuditEntry,
  type ToolCallFace,
  toolAuditEntry,
} from './tool-audit.ts';
import { type ArgsValidation, applyToolPolicies, type ToolPolicy } from './tool-policy.ts';

export const MAX_ITERATIONS_HINT = '已达到最大迭代次数，正在生成当前执行结果的总结';
export const LOAD_SKILL_TOOL = 'load_skill';
/** The error code of a host tool call the host answered with an error. */
export const HOST_TOOL_FAILED = 'host_tool_failed';
const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
const YIELD_EVERY_PARTS = 16;

/** One macrotask turn, so sockets get written and other runs get their share. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface AgentContext {
  runId: string;
  conversationId: string;
  userId: string;
  /** The trace id the run was started under; tools, policies and audit entries get it. */
  traceId?: string;
  /** Which face started the run. Default `chat`. */
  face?: ToolCallFace;
}

export interface AgentOptions {
  model: ChatModel;
  tools: readonly AnyTool[];
  skills: readonly Skill[];
  log: RunLog;
  context: AgentContext;
  signal: AbortSignal;
  /** Model turns with tools before the summary turn. Default 10. */
  maxIterations?: number;
  /** New block ids; default `blk_<n>` numbered within the run. */
  newBlockId?: () => string;
  /**
   * Tools the caller declared and runs itself, offered next to `tools`. A call of one pauses the run
   * (`run.paused`, reason `tool_result`) until `resumeWithToolResults`.
   */
  hostTools?: readonly HostToolDefinition[];
  /** Checked in order for every tool call after its arguments validate, before anything runs. */
  policies?: readonly ToolPolicy[];
  /** Told each tool call's audit entry once its outcome is known. Must not throw (it is guarded). */
  onToolAudit?: (entry: ToolAuditEntry) => void;
}

/** Where a run stands between model turns; saved while paused so a restart can resume it. */
export interface AgentCheckpoint {
  transcript: ChatMessage[];
  loadedSkills: string[];
  iterations: number;
  /** Write calls waiting for a decision, with what the model asked for. */
  pending: PendingWrite[];
  /**
   * Host tool calls waiting for the host's results. When `pending` is not empty too, the run waits
   * for the decisions first, then for these. Absent in checkpoints of older versions.
   */
  hostPending?: PendingHostCall[];
}

export interface PendingWrite {
  toolCallId: string;
  name: string;
  args: unknown;
  blockId: string;
  confirmBlockId: string;
  /** The policies' decision, for the audit entry written once the call ends. */
  audit?: PendingAudit;
}

/** A host tool call waiting for its result: its tool block stays `pending` meanwhile. */
export interface PendingHostCall {
  toolCallId: string;
  name: string;
  args: unknown;
  blockId: string;
  audit?: PendingAudit;
}

/** Whether a paused checkpoint waits for host tool results (and no longer for decisions). */
export function waitsForToolResults(checkpoint: AgentCheckpoint): boolean {
  return checkpoint.pending.length === 0 && (checkpoint.hostPending?.length ?? 0) > 0;
}

export type AgentOutcome =
  | { status: 'completed' }
  | { status: 'paused'; checkpoint: AgentCheckpoint }
  | { status: 'failed'; error: { code: string; message: string } };

/**
 * The agent loop: stream a model turn, turn its output into blocks, run its tool calls (validated,
 * with a timeout and the run's signal), feed the results back, and repeat until the model answers.
 * A write tool pauses the run for the owner's decision instead of running. Knows nothing of HTTP or
 * SQL: it writes events to the run's log and calls interfaces.
 */
export class Agent {
  readonly #options: AgentOptions;
  readonly #hostTools: ReadonlyMap<string, HostToolValidator>;
  /** Calls of this stretch whose outcome (and audit entry) is not known yet. */
  readonly #open = new Map<string, AuditedCall>();
  #blockCounter = 0;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#blockCounter = options.log.state.blocks.length;
    this.#hostTools = new Map(
      (options.hostTools ?? []).map((definition) => [definition.name, hostToolValidator(definition)]),
    );
  }

  /** Run from a transcript ending with the user's message. */
  async start(transcript: ChatMessage[]): Promise<AgentOutcome> {
    return this.#guard(() =>
      this.#loop({ transcript, loadedSkills: [], iterations: 0, pending: [], hostPending: [] }),
    );
  }

  /**
   * Continue a paused run once every pending write has a decision: approved calls run (once: the
   * caller guarantees single execution), rejected ones are reported to the model as rejected.
   */
  async resume(
    checkpoint: AgentCheckpoint,
    decisions: ReadonlyMap<string, 'approve' | 'reject'>,
    execute: (call: PendingWrite) => Promise<boolean>,
  ): Promise<AgentOutcome> {
    return this.#guard(() => this.#resume(checkpoint, decisions, execute));
  }

  async #resume(
    checkpoint: AgentCheckpoint,
    decisions: ReadonlyMap<string, 'approve' | 'reject'>,
    execute: (call: PendingWrite) => Promise<boolean>,
  ): Promise<AgentOutcome> {
    const { log, signal } = this.#options;
    this.#reopen(checkpoint);
    // The cards show their decisions first, then the run goes on where it paused.
    for (const call of checkpoint.pending) {
      const decision = decisions.get(call.toolCallId) ?? 'reject';
      log.append({
        type: 'block.updated',
        blockId: call.confirmBlockId,
        kind: 'confirm',
        status: decision === 'approve' ? 'approved' : 'rejected',
        decision: { decision, decidedAt: Date.now() },
      });
      this.#endBlock(call.confirmBlockId);
    }
    log.append({
      type: 'run.resumed',
      reason: 'confirmation',
      toolCallIds: checkpoint.pending.map((call) => call.toolCallId),
    });
    const transcript = [...checkpoint.transcript];
    for (const call of checkpoint.pending) {
      if (decisions.get(call.toolCallId) === 'approve') {
        // `execute` claims the single execution; a second claim (a double approve) runs nothing.
        if (!(await execute(call))) {
          this.#open.delete(call.toolCallId);
          continue;
        }
        const tool = this.#options.tools.find((candidate) => candidate.name === call.name);
        const content = tool
          ? await this.#runTool(tool, call.toolCallId, call.blockId, call.args)
          : this.#failTool(call.toolCallId, call.blockId, 'unknown_tool', `no tool named ${call.name}`);
        transcript.push({ role: 'tool', toolCallId: call.toolCallId, content });
      } else {
        log.append({
          type: 'block.updated',
          blockId: call.blockId,
          kind: 'tool',
          toolCallId: call.toolCallId,
          status: 'rejected',
        });
        this.#endBlock(call.blockId);
        this.#audit(call.toolCallId, 'rejected');
        transcript.push({
          role: 'tool',
          toolCallId: call.toolCallId,
          content: JSON.stringify({ rejected: true, message: '用户拒绝了这个操作，未执行。' }),
        });
      }
    }
    const hostPending = checkpoint.hostPending ?? [];
    if (hostPending.length > 0) {
      // The same turn also called host tools: now the run waits for their results.
      signal.throwIfAborted();
      return this.#pause('tool_result', { ...checkpoint, transcript, pending: [], hostPending });
    }
    return this.#loop({ ...checkpoint, transcript, pending: [], hostPending: [] });
  }

  /**
   * Continue a run paused for host tool results once every pending host call has one: each tool
   * block ends `done` with the output (parsed as JSON when it is JSON) or `failed` with the host's
   * error, `run.resumed` follows, and the model reads the outputs as tool messages.
   */
  async resumeWithToolResults(
    checkpoint: AgentCheckpoint,
    results: ReadonlyMap<string, HostToolResult>,
  ): Promise<AgentOutcome> {
    return this.#guard(async () => {
      const { log } = this.#options;
      const hostPending = checkpoint.hostPending ?? [];
      for (const call of hostPending) {
        if (!results.has(call.toolCallId)) throw new Error(`no result for host tool call ${call.toolCallId}`);
      }
      this.#reopen(checkpoint);
      const transcript = [...checkpoint.transcript];
      for (const call of hostPending) {
        const result = results.get(call.toolCallId) as HostToolResult;
        const openedAt = this.#open.get(call.toolCallId)?.audit.openedAt ?? Date.now();
        if ('output' in result) {
          log.append({
            type: 'block.updated',
            blockId: call.blockId,
            kind: 'tool',
            toolCallId: call.toolCallId,
            status: 'done',
            result: parseOutput(result.output),
          });
          this.#endBlock(call.blockId);
          this.#audit(call.toolCallId, 'done', { durationMs: Date.now() - openedAt });
          transcript.push({ role: 'tool', toolCallId: call.toolCallId, content: result.output });
        } else {
          const error = { code: HOST_TOOL_FAILED, message: result.error };
          log.append({
            type: 'block.updated',
            blockId: call.blockId,
            kind: 'tool',
            toolCallId: call.toolCallId,
            status: 'failed',
            error,
          });
          this.#endBlock(call.blockId);
          this.#audit(call.toolCallId, 'failed', {
            error: `${HOST_TOOL_FAILED}: ${result.error}`,
            durationMs: Date.now() - openedAt,
          });
          transcript.push({ role: 'tool', toolCallId: call.toolCallId, content: JSON.stringify({ error }) });
        }
      }
      log.append({
        type: 'run.resumed',
        reason: 'tool_result',
        toolCallIds: hostPending.map((call) => call.toolCallId),
      });
      return this.#loop({ ...checkpoint, transcript, pending: [], hostPending: [] });
    });
  }

  async #loop(checkpoint: AgentCheckpoint): Promise<AgentOutcome> {
    const { log, signal } = this.#options;
    const maxIterations = this.#options.maxIterations ?? 10;
    const transcript = checkpoint.transcript;
    const loadedSkills = new Set(checkpoint.loadedSkills);
    let iterations = checkpoint.iterations;
    try {
      // Let the caller answer (headers, run.started) before the first model turn starts.
      await yieldToEventLoop();
      while (iterations < maxIterations) {
        signal.throwIfAborted();
        iterations += 1;
        const turn = await this.#streamTurn(transcript, this.#visibleTools(loadedSkills));
        transcript.push({
          role: 'assistant',
          content: turn.text,
          ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
          ...(turn.calls.length > 0 ? { toolCalls: turn.calls.map((call) => call.request) } : {}),
        });
        if (turn.calls.length === 0) return { status: 'completed' };
        for (const call of turn.calls) this.#openCall(call.request);
        const pending: PendingWrite[] = [];
        const hostPending: PendingHostCall[] = [];
        for (const call of turn.calls) {
          signal.throwIfAborted();
          const result = await this.#handleCall(
            call.request,
            call.blockId,
            loadedSkills,
            pending,
            hostPending,
          );
          if (result !== undefined)
            transcript.push({ role: 'tool', toolCallId: call.request.id, content: result });
        }
        if (pending.length > 0 || hostPending.length > 0) {
          // A stop that arrived while the cards were being prepared wins over the pause.
          signal.throwIfAborted();
          // Confirmations first; the host calls of the same turn wait in the checkpoint meanwhile.
          return this.#pause(pending.length > 0 ? 'confirmation' : 'tool_result', {
            transcript,
            loadedSkills: [...loadedSkills],
            iterations,
            pending,
            hostPending,
          });
        }
      }
      // Out of iterations: say so, then one last turn without tools for a summary.
      log.append({ type: 'run.hint', code: 'max_iterations', text: MAX_ITERATIONS_HINT });
      const summary = await this.#streamTurn(
        [
          ...transcript,
          { role: 'user', content: '请根据目前已有的工具结果，总结当前的执行情况并回答用户。' },
        ],
        [],
      );
      transcript.push({ role: 'assistant', content: summary.text });
      return { status: 'completed' };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      this.#settleOpen('failed', `runtime_error: ${messageOf(error)}`);
      const message =
        error instanceof ModelError
          ? `模型服务出错，本轮回答已中断：${error.message}`
          : `本轮运行出错，已中断：${error instanceof Error ? error.message : String(error)}`;
      const code = error instanceof ModelError ? error.code : 'runtime_error';
      this.#closeOpenBlocks('interrupted');
      const blockId = this.#newBlockId();
      log.append({ type: 'block.started', blockId, kind: 'error' });
      log.append({ type: 'block.delta', blockId, text: message });
      this.#endBlock(blockId, 'done');
      return { status: 'failed', error: { code, message } };
    }
  }

  /** Stream one model turn into blocks; returns its text and tool calls. */
  async #streamTurn(
    transcript: readonly ChatMessage[],
    tools: readonly ToolDefinition[],
  ): Promise<{ text: string; reasoning: string; calls: { request: ToolCallRequest; blockId: string }[] }> {
    const { log, model, signal } = this.#options;
    let openText: { blockId: string; kind: 'reasoning' | 'answer' } | undefined;
    let text = '';
    let reasoning = '';
    const toolBlocks = new Map<number, { blockId: string; id: string; name: string }>();
    const calls: { request: ToolCallRequest; blockId: string }[] = [];
    const closeText = () => {
      if (openText) this.#endBlock(openText.blockId, 'done');
      openText = undefined;
    };
    const writeText = (kind: 'reasoning' | 'answer', delta: string) => {
      if (delta.length === 0) return;
      if (openText?.kind !== kind) {
        closeText();
        openText = { blockId: this.#newBlockId(), kind };
        log.append({ type: 'block.started', blockId: openText.blockId, kind });
      }
      log.append({ type: 'block.delta', blockId: openText.blockId, text: delta });
    };
    let parts = 0;
    for await (const part of model.stream({ messages: transcript, tools, signal })) {
      // A model that answers without pauses (a local one, a scripted one) would otherwise produce the
      // whole turn in one macrotask: no byte reaches any socket, and concurrent runs wait in line.
      parts += 1;
      if (parts % YIELD_EVERY_PARTS === 0) await yieldToEventLoop();
      switch (part.type) {
        case 'reasoning-delta':
          reasoning += part.text;
          writeText('reasoning', part.text);
          break;
        case 'text-delta':
          text += part.text;
          writeText('answer', part.text);
          break;
        case 'tool-call-start': {
          closeText();
          const blockId = this.#newBlockId();
          toolBlocks.set(part.index, { blockId, id: part.id, name: part.name });
          const tool = this.#options.tools.find((candidate) => candidate.name === part.name);
          const title = part.name === LOAD_SKILL_TOOL ? '加载技能手册' : (tool?.title ?? part.name);
          log.append({
            type: 'block.started',
            blockId,
            kind: 'tool',
            toolCallId: part.id,
            name: part.name,
            title,
          });
          break;
        }
        case 'tool-call-delta': {
          const block = toolBlocks.get(part.index);
          if (block && part.argumentsDelta.length > 0)
            log.append({ type: 'block.delta', blockId: block.blockId, text: part.argumentsDelta });
          break;
        }
        case 'tool-call-end': {
          const block = toolBlocks.get(part.index);
          if (block)
            calls.push({
              request: { id: block.id, name: part.name, arguments: part.arguments },
              blockId: block.blockId,
            });
          break;
        }
        case 'finish':
          break;
      }
    }
    closeText();
    return { text, reasoning, calls };
  }

  /**
   * Validate, vet (policies) and run one call; returns the tool message for the model, or undefined
   * when the call waits (a write for its confirmation, a host call for its result).
   */
  async #handleCall(
    request: ToolCallRequest,
    blockId: string,
    loadedSkills: Set<string>,
    pending: PendingWrite[],
    hostPending: PendingHostCall[],
  ): Promise<string | undefined> {
    const { log, signal } = this.#options;
    let rawArgs: unknown;
    try {
      rawArgs = request.arguments.trim() === '' ? {} : JSON.parse(request.arguments);
    } catch {
      return this.#failTool(
        request.id,
        blockId,
        'invalid_arguments',
        `arguments are not valid JSON: ${request.arguments.slice(0, 200)}`,
      );
    }
    this.#setOpenArgs(request.id, rawArgs);
    if (request.name === LOAD_SKILL_TOOL) {
      const parsed = LOAD_SKILL_ARGS.safeParse(rawArgs);
      // An unknown or missing skill name fails in #loadSkill, as before any policy sees it.
      if (!parsed.success) return this.#loadSkill(request.id, blockId, rawArgs, loadedSkills);
      const vetted = await this.#vet(request, blockId, parsed.data, (args) =>
        validateWith(LOAD_SKILL_ARGS, args),
      );
      if ('failed' in vetted) return vetted.failed;
      return this.#loadSkill(request.id, blockId, vetted.args, loadedSkills);
    }
    const host = this.#hostTools.get(request.name);
    if (host !== undefined) {
      const parsed = host.validate(rawArgs);
      if (!parsed.success) {
        log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args: rawArgs });
        return this.#failTool(request.id, blockId, 'invalid_arguments', parsed.error);
      }
      const vetted = await this.#vet(request, blockId, parsed.data, (args) => host.validate(args));
      if ('failed' in vetted) return vetted.failed;
      // The block keeps `pending`: the host runs the call once the run has paused.
      log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args: vetted.args });
      hostPending.push({
        toolCallId: request.id,
        name: request.name,
        args: vetted.args,
        blockId,
        audit: this.#openAudit(request.id),
      });
      return undefined;
    }
    const tool = this.#options.tools.find((candidate) => candidate.name === request.name);
    if (tool === undefined || (tool.requiresSkill !== undefined && !loadedSkills.has(tool.requiresSkill))) {
      return this.#failTool(
        request.id,
        blockId,
        'unknown_tool',
        `no tool named ${request.name} is available`,
      );
    }
    const parsed = tool.parameters.safeParse(rawArgs);
    if (!parsed.success) {
      log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args: rawArgs });
      return this.#failTool(request.id, blockId, 'invalid_arguments', z.prettifyError(parsed.error));
    }
    const vetted = await this.#vet(request, blockId, parsed.data, (args) =>
      validateWith(tool.parameters, args),
    );
    if ('failed' in vetted) return vetted.failed;
    const args = vetted.args;
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args });
    if (tool.effect === 'write') {
      let card: Awaited<ReturnType<NonNullable<AnyTool['confirm']>>>;
      try {
        card = tool.confirm
          ? await tool.confirm(args, this.#toolContext(request.id, signal))
          : { title: tool.title, description: tool.description, details: [] };
      } catch (error) {
        return this.#failTool(
          request.id,
          blockId,
          error instanceof ToolError ? error.code : 'tool_failed',
          messageOf(error),
        );
      }
      log.append({
        type: 'block.updated',
        blockId,
        kind: 'tool',
        toolCallId: request.id,
        status: 'awaiting_confirmation',
      });
      const confirmBlockId = this.#newBlockId();
      log.append({
        type: 'block.started',
        blockId: confirmBlockId,
        kind: 'confirm',
        toolCallId: request.id,
        ...card,
      });
      pending.push({
        toolCallId: request.id,
        name: tool.name,
        args,
        blockId,
        confirmBlockId,
        audit: this.#openAudit(request.id),
      });
      return undefined;
    }
    return this.#runTool(tool, request.id, blockId, args);
  }

  /**
   * Run the policies over a call whose arguments validated. A deny (or a rewrite the tool's schema
   * refuses) fails the block with a message the model reads; otherwise the arguments to use.
   */
  async #vet(
    request: ToolCallRequest,
    blockId: string,
    args: unknown,
    validate: (args: unknown) => ArgsValidation,
  ): Promise<{ args: unknown } | { failed: string }> {
    const { log, context, signal } = this.#options;
    const policies = this.#options.policies ?? [];
    this.#setOpenArgs(request.id, args);
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
    const open = this.#open.get(request.id);
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
      return { failed: this.#failTool(request.id, blockId, 'tool_denied', outcome.reason, 0, 'denied') };
    }
    if (outcome.decision === 'invalid_rewrite') {
      log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args });
      return { failed: this.#failTool(request.id, blockId, 'policy_rewrite_invalid', outcome.reason) };
    }
    return { args: outcome.args };
  }

  async #runTool(tool: AnyTool, toolCallId: string, blockId: string, args: unknown): Promise<string> {
    const { log, signal } = this.#options;
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId, status: 'running' });
    const started = performance.now();
    const timeout = AbortSignal.timeout(tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const toolSignal = AbortSignal.any([signal, timeout]);
    try {
      const result = await raceAbort(
        tool.execute(args, this.#toolContext(toolCallId, toolSignal)),
        toolSignal,
      );
      log.append({
        type: 'block.updated',
        blockId,
        kind: 'tool',
        toolCallId,
        status: 'done',
        result: result ?? null,
      });
      const durationMs = performance.now() - started;
      this.#endBlock(blockId, undefined, durationMs);
      this.#audit(toolCallId, 'done', { durationMs });
      return JSON.stringify(result ?? null);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const timedOut = timeout.aborted;
      const code = timedOut ? 'tool_timeout' : error instanceof ToolError ? error.code : 'tool_failed';
      const message = timedOut
        ? `工具执行超时（${tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS} 毫秒）`
        : messageOf(error);
      return this.#failTool(
        toolCallId,
        blockId,
        code,
        message,
        performance.now() - started,
        timedOut ? 'timeout' : 'failed',
      );
    }
  }

  #loadSkill(toolCallId: string, blockId: string, args: unknown, loadedSkills: Set<string>): string {
    const { log } = this.#options;
    const name = LOAD_SKILL_ARGS.safeParse(args);
    const skill = name.success
      ? this.#options.skills.find((candidate) => candidate.name === name.data.name)
      : undefined;
    if (skill === undefined) {
      const known = this.#options.skills.map((candidate) => candidate.name).join(', ');
      return this.#failTool(
        toolCallId,
        blockId,
        'unknown_skill',
        `no skill named ${name.success ? name.data.name : '?'}; known: ${known}`,
      );
    }
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId, status: 'running', args });
    loadedSkills.add(skill.name);
    const result = {
      name: skill.name,
      title: skill.title,
      unlockedTools: skill.unlocksTools,
      handbook: skill.body,
    };
    log.append({
      type: 'block.updated',
      blockId,
      kind: 'tool',
      toolCallId,
      status: 'done',
      result: { name: skill.name, title: skill.title, unlockedTools: skill.unlocksTools },
    });
    this.#endBlock(blockId, undefined, 0);
    this.#audit(toolCallId, 'done', { durationMs: 0 });
    return JSON.stringify(result);
  }

  /** A failed call: the block says why, and so does the tool message the model reads next. */
  #failTool(
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
    this.#endBlock(blockId, undefined, durationMs);
    this.#audit(toolCallId, outcome, {
      ...(outcome === 'denied' ? {} : { error: `${code}: ${message}` }),
      ...(outcome === 'denied' ? {} : { durationMs }),
    });
    return JSON.stringify({ error: { code, message } });
  }

  /** Pause the run: the pending calls (the decisions' or the host's) and where to go on from. */
  #pause(reason: 'confirmation' | 'tool_result', checkpoint: AgentCheckpoint): AgentOutcome {
    const waiting = reason === 'confirmation' ? checkpoint.pending : (checkpoint.hostPending ?? []);
    const calls: PendingCall[] = waiting.map((call) => ({
      toolCallId: call.toolCallId,
      name: call.name,
      args: call.args,
    }));
    this.#options.log.append({ type: 'run.paused', reason, pending: calls });
    // Their audit entries are written when they end: the checkpoint carries what they need.
    this.#open.clear();
    return { status: 'paused', checkpoint };
  }

  /** Run a stretch; a stop (or a bug) that ends it records the calls still open as such. */
  async #guard(work: () => Promise<AgentOutcome>): Promise<AgentOutcome> {
    try {
      return await work();
    } catch (error) {
      const { signal } = this.#options;
      if (signal.aborted) {
        const reason = signal.reason instanceof RunCancelled ? signal.reason.reason : 'server_shutdown';
        this.#settleOpen('cancelled', `run_cancelled: ${reason}`);
      } else this.#settleOpen('failed', `runtime_error: ${messageOf(error)}`);
      throw error;
    }
  }

  /** The calls a paused checkpoint waits on are open again while the run goes on from it. */
  #reopen(checkpoint: AgentCheckpoint): void {
    const now = Date.now();
    for (const call of checkpoint.pending) {
      this.#open.set(call.toolCallId, {
        toolCallId: call.toolCallId,
        name: call.name,
        args: call.args,
        executor: 'server',
        effect: 'write',
        audit: call.audit ?? { decision: 'allow', openedAt: now },
      });
    }
    for (const call of checkpoint.hostPending ?? []) {
      this.#open.set(call.toolCallId, {
        toolCallId: call.toolCallId,
        name: call.name,
        args: call.args,
        executor: 'host',
        effect: 'host',
        audit: call.audit ?? { decision: 'allow', openedAt: now },
      });
    }
  }

  /** Who runs a tool of that name, and what kind of call it is (`load_skill` reads; unknown: read). */
  #classify(name: string): Pick<AuditedCall, 'executor' | 'effect'> {
    if (this.#hostTools.has(name)) return { executor: 'host', effect: 'host' };
    if (name === LOAD_SKILL_TOOL) return { executor: 'server', effect: 'read' };
    return {
      executor: 'server',
      effect: this.#options.tools.find((tool) => tool.name === name)?.effect ?? 'read',
    };
  }

  /** A call the model made: open until its outcome is known. */
  #openCall(request: ToolCallRequest): void {
    this.#open.set(request.id, {
      toolCallId: request.id,
      name: request.name,
      args: request.arguments,
      ...this.#classify(request.name),
      audit: { decision: 'allow', openedAt: Date.now() },
    });
  }

  #setOpenArgs(toolCallId: string, args: unknown): void {
    const open = this.#open.get(toolCallId);
    if (open) open.args = args;
  }

  #openAudit(toolCallId: string): PendingAudit {
    return this.#open.get(toolCallId)?.audit ?? { decision: 'allow', openedAt: Date.now() };
  }

  /** Write the audit entry of an open call with its outcome; best effort, never failing the run. */
  #audit(
    toolCallId: string,
    outcome: ToolAuditEntry['outcome'],
    detail: { error?: string; durationMs?: number } = {},
  ): void {
    const call = this.#open.get(toolCallId);
    if (call === undefined) return;
    this.#open.delete(toolCallId);
    const { onToolAudit, context } = this.#options;
    if (onToolAudit === undefined) return;
    try {
      onToolAudit(toolAuditEntry(context, call, outcome, detail));
    } catch {
      // The audit sink reports its own failures; a tool call never fails because of it.
    }
  }

  /** Every call still open ends with `outcome` (a stop, a failure of the run). */
  #settleOpen(outcome: 'cancelled' | 'failed', error: string): void {
    for (const call of [...this.#open.values()]) {
      this.#audit(call.toolCallId, outcome, { error, durationMs: Date.now() - call.audit.openedAt });
    }
  }

  #toolContext(toolCallId: string, signal: AbortSignal): ToolContext {
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

  #visibleTools(loadedSkills: ReadonlySet<string>): ToolDefinition[] {
    const visible = this.#options.tools
      .filter((tool) => tool.requiresSkill === undefined || loadedSkills.has(tool.requiresSkill))
      .map((tool) => ({ name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool) }));
    for (const host of this.#hostTools.values()) {
      const { name, description, parameters } = host.definition;
      visible.push({ name, description, parameters });
    }
    if (this.#options.skills.length === 0) return visible;
    const catalogue = this.#options.skills.map((skill) => `${skill.name}: ${skill.description}`).join('\n');
    return [
      {
        name: LOAD_SKILL_TOOL,
        description: `Load a handbook before a task it covers; some tools appear only after it is loaded.\n${catalogue}`,
        parameters: {
          type: 'object',
          properties: { name: { type: 'string', enum: this.#options.skills.map((skill) => skill.name) } },
          required: ['name'],
        },
      },
      ...visible,
    ];
  }

  #endBlock(blockId: string, status?: 'done' | 'cancelled' | 'interrupted', durationMs?: number): void {
    const { log } = this.#options;
    const block = log.state.blocks.find((candidate) => candidate.blockId === blockId);
    if (block === undefined || block.endedAt !== null) return;
    const endedAt = Date.now();
    log.append({
      type: 'block.ended',
      blockId,
      endedAt,
      durationMs: Math.max(0, Math.round(durationMs ?? endedAt - block.startedAt)),
      ...(status !== undefined ? { status } : {}),
    });
  }

  /** Close every open block (a stop, a crash, a failure), as the protocol requires before finishing. */
  #closeOpenBlocks(textStatus: 'cancelled' | 'interrupted'): void {
    closeOpenBlocks(this.#options.log, textStatus);
  }

  #newBlockId(): string {
    if (this.#options.newBlockId) return this.#options.newBlockId();
    this.#blockCounter += 1;
    return `blk_${this.#blockCounter}`;
  }
}

/**
 * Close every open text and tool block of a run (text with `textStatus`; tools updated to
 * `cancelled` or `interrupted`); pending confirmation cards expire. Used for stops, crashes, failures.
 */
export function closeOpenBlocks(log: RunLog, textStatus: 'cancelled' | 'interrupted'): void {
  const now = Date.now();
  for (const block of log.state.blocks) {
    if (block.endedAt !== null) continue;
    if (block.kind === 'tool') {
      log.append({
        type: 'block.updated',
        blockId: block.blockId,
        kind: 'tool',
        toolCallId: block.toolCallId,
        status: textStatus,
      });
    } else if (block.kind === 'confirm') {
      if (block.status === 'pending')
        log.append({ type: 'block.updated', blockId: block.blockId, kind: 'confirm', status: 'expired' });
    }
    log.append({
      type: 'block.ended',
      blockId: block.blockId,
      endedAt: now,
      durationMs: Math.max(0, now - block.startedAt),
      ...(block.kind === 'tool' || block.kind === 'confirm' ? {} : { status: textStatus }),
    });
  }
}

const LOAD_SKILL_ARGS = z.object({ name: z.string() });

function validateWith(schema: z.ZodType, args: unknown): ArgsValidation {
  const parsed = schema.safeParse(args);
  return parsed.success
    ? { success: true, data: parsed.data }
    : { success: false, error: z.prettifyError(parsed.error) };
}

/** A host's output as the tool block's result: the JSON it holds, or the text itself. */
function parseOutput(output: string): unknown {
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}

function jsonSchemaOf(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.parameters, { target: 'draft-7' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
