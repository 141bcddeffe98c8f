import { z } from 'zod';
import type { ChatMessage, ChatModel, ToolCallRequest, ToolDefinition } from '../models/index.ts';
import { ModelError } from '../models/index.ts';
import type { PendingCall } from '../protocol/index.ts';
import type { RunLog } from './run-log.ts';
import type { Skill } from './skill.ts';
import { type AnyTool, ToolError } from './tool.ts';

export const MAX_ITERATIONS_HINT = '已达到最大迭代次数，正在生成当前执行结果的总结';
export const LOAD_SKILL_TOOL = 'load_skill';
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
}

/** Where a run stands between model turns; saved while paused so a restart can resume it. */
export interface AgentCheckpoint {
  transcript: ChatMessage[];
  loadedSkills: string[];
  iterations: number;
  /** Write calls waiting for a decision, with what the model asked for. */
  pending: PendingWrite[];
}

export interface PendingWrite {
  toolCallId: string;
  name: string;
  args: unknown;
  blockId: string;
  confirmBlockId: string;
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
  #blockCounter = 0;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#blockCounter = options.log.state.blocks.length;
  }

  /** Run from a transcript ending with the user's message. */
  async start(transcript: ChatMessage[]): Promise<AgentOutcome> {
    return this.#loop({ transcript, loadedSkills: [], iterations: 0, pending: [] });
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
    const { log } = this.#options;
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
        if (!(await execute(call))) continue;
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
        transcript.push({
          role: 'tool',
          toolCallId: call.toolCallId,
          content: JSON.stringify({ rejected: true, message: '用户拒绝了这个操作，未执行。' }),
        });
      }
    }
    return this.#loop({ ...checkpoint, transcript, pending: [] });
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
        const pending: PendingWrite[] = [];
        for (const call of turn.calls) {
          signal.throwIfAborted();
          const result = await this.#handleCall(call.request, call.blockId, loadedSkills, pending);
          if (result !== undefined)
            transcript.push({ role: 'tool', toolCallId: call.request.id, content: result });
        }
        if (pending.length > 0) {
          // A stop that arrived while the cards were being prepared wins over the pause.
          signal.throwIfAborted();
          const calls: PendingCall[] = pending.map((call) => ({
            toolCallId: call.toolCallId,
            name: call.name,
            args: call.args,
          }));
          log.append({ type: 'run.paused', reason: 'confirmation', pending: calls });
          return {
            status: 'paused',
            checkpoint: { transcript, loadedSkills: [...loadedSkills], iterations, pending },
          };
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

  /** Validate and run one call; returns the tool message for the model, or undefined when paused. */
  async #handleCall(
    request: ToolCallRequest,
    blockId: string,
    loadedSkills: Set<string>,
    pending: PendingWrite[],
  ): Promise<string | undefined> {
    const { log, context, signal } = this.#options;
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
    if (request.name === LOAD_SKILL_TOOL) return this.#loadSkill(request.id, blockId, rawArgs, loadedSkills);
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
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args: parsed.data });
    if (tool.effect === 'write') {
      let card: Awaited<ReturnType<NonNullable<AnyTool['confirm']>>>;
      try {
        card = tool.confirm
          ? await tool.confirm(parsed.data, { ...context, toolCallId: request.id, signal })
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
      pending.push({ toolCallId: request.id, name: tool.name, args: parsed.data, blockId, confirmBlockId });
      return undefined;
    }
    return this.#runTool(tool, request.id, blockId, parsed.data);
  }

  async #runTool(tool: AnyTool, toolCallId: string, blockId: string, args: unknown): Promise<string> {
    const { log, context, signal } = this.#options;
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId, status: 'running' });
    const started = performance.now();
    const timeout = AbortSignal.timeout(tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
    const toolSignal = AbortSignal.any([signal, timeout]);
    try {
      const result = await raceAbort(
        tool.execute(args, { ...context, toolCallId, signal: toolSignal }),
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
      this.#endBlock(blockId, undefined, performance.now() - started);
      return JSON.stringify(result ?? null);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const timedOut = timeout.aborted;
      const code = timedOut ? 'tool_timeout' : error instanceof ToolError ? error.code : 'tool_failed';
      const message = timedOut
        ? `工具执行超时（${tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS} 毫秒）`
        : messageOf(error);
      return this.#failTool(toolCallId, blockId, code, message, performance.now() - started);
    }
  }

  #loadSkill(toolCallId: string, blockId: string, args: unknown, loadedSkills: Set<string>): string {
    const { log } = this.#options;
    const name = z.object({ name: z.string() }).safeParse(args);
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
    return JSON.stringify(result);
  }

  /** A failed call: the block says why, and so does the tool message the model reads next. */
  #failTool(toolCallId: string, blockId: string, code: string, message: string, durationMs = 0): string {
    this.#options.log.append({
      type: 'block.updated',
      blockId,
      kind: 'tool',
      toolCallId,
      status: 'failed',
      error: { code, message },
    });
    this.#endBlock(blockId, undefined, durationMs);
    return JSON.stringify({ error: { code, message } });
  }

  #visibleTools(loadedSkills: ReadonlySet<string>): ToolDefinition[] {
    const visible = this.#options.tools
      .filter((tool) => tool.requiresSkill === undefined || loadedSkills.has(tool.requiresSkill))
      .map((tool) => ({ name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool) }));
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
