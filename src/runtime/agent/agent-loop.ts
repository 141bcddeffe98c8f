import type { ChatMessage, ToolCallRequest } from '../../models/chat-model.ts';
import { ModelError } from '../../models/chat-model.ts';
import type { PendingCall } from '../../protocol/index.ts';
import type { HostToolResult } from '../../store/index.ts';
import { RunBlocks } from '../log/run-blocks.ts';
import { RunCancelled } from '../runs/run-cancelled.ts';
import { applyDecisions, requestConfirmation } from '../tools/confirmations.ts';
import { type HostToolValidator, hostToolValidator } from '../tools/host-tool.ts';
import { applyHostResults, requestHostResult } from '../tools/host-tool-calls.ts';
import { OpenToolCalls, type ToolClassification } from '../tools/open-tool-calls.ts';
import type { AnyTool } from '../tools/tool.ts';
import { ToolExecution, validateWith } from '../tools/tool-execution.ts';
import type { AgentCheckpoint, PendingHostCall, PendingWrite } from './agent-checkpoint.ts';
import type { AgentOptions } from './agent-options.ts';
import type { AgentParts } from './agent-parts.ts';
import { closeOpenBlocks } from './close-open-blocks.ts';
import { handleLoadSkill, LOAD_SKILL_TOOL } from './load-skill.ts';
import { messageOf } from './message-of.ts';
import { assistantMessageOf, type ModelTurn, streamModelTurn, yieldToEventLoop } from './model-turn.ts';
import { formatMessage, RUN_MESSAGES, type RunMessages } from './run-messages.ts';
import { visibleTools } from './visible-tools.ts';

/** What a person is told when the provider ended the answer early (see `#noteCutShort`). */
function cutShortNote(messages: RunMessages, finishReason: ModelTurn['finishReason']): string | undefined {
  if (finishReason === 'length') return messages.cutShortLength;
  if (finishReason === 'content_filter') return messages.cutShortContentFilter;
  return undefined;
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
  readonly #parts: AgentParts;

  get #messages(): RunMessages {
    return this.#options.messages ?? RUN_MESSAGES['zh-CN'];
  }

  constructor(options: AgentOptions) {
    this.#options = options;
    const blocks = new RunBlocks(options);
    this.#hostTools = new Map(
      (options.hostTools ?? []).map((definition) => [definition.name, hostToolValidator(definition)]),
    );
    const calls = new OpenToolCalls(options);
    const execution = new ToolExecution(options, blocks, calls, (name) => this.#classify(name));
    this.#parts = { options, blocks, calls, execution };
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
    return this.#guard(async () => {
      const transcript = await applyDecisions(this.#parts, checkpoint, decisions, execute);
      const hostPending = checkpoint.hostPending ?? [];
      if (hostPending.length > 0) {
        // The same turn also called host tools: now the run waits for their results.
        this.#options.signal.throwIfAborted();
        return this.#pause('tool_result', { ...checkpoint, transcript, pending: [], hostPending });
      }
      return this.#loop({ ...checkpoint, transcript, pending: [], hostPending: [] });
    });
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
      const transcript = applyHostResults(this.#parts, checkpoint, results);
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
        const turn = await streamModelTurn(
          this.#options,
          this.#parts.blocks,
          transcript,
          visibleTools(
            this.#options.tools,
            this.#hostTools,
            this.#options.skills,
            loadedSkills,
            this.#options.policies,
          ),
        );
        this.#stepFinished(iterations, turn);
        transcript.push(assistantMessageOf(turn));
        if (turn.calls.length === 0) {
          this.#noteCutShort(turn);
          return { status: 'completed' };
        }
        for (const call of turn.calls)
          this.#parts.calls.open(call.request, this.#classify(call.request.name));
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
      log.append({ type: 'run.hint', code: 'max_iterations', text: this.#messages.maxStepsHint });
      const summary = await streamModelTurn(
        this.#options,
        this.#parts.blocks,
        [...transcript, { role: 'user', content: this.#messages.summaryPrompt }],
        [],
      );
      this.#stepFinished(iterations + 1, summary);
      transcript.push(assistantMessageOf(summary));
      this.#noteCutShort(summary);
      return { status: 'completed' };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      this.#parts.calls.settle('failed', `runtime_error: ${messageOf(error)}`);
      const message = formatMessage(
        error instanceof ModelError ? this.#messages.modelFailed : this.#messages.runFailed,
        { message: messageOf(error) },
      );
      const code = error instanceof ModelError ? error.code : 'runtime_error';
      // Every open block closes, as the protocol requires before finishing.
      closeOpenBlocks(log, 'interrupted');
      const blockId = this.#parts.blocks.newBlockId();
      log.append({ type: 'block.started', blockId, kind: 'error' });
      log.append({ type: 'block.delta', blockId, text: message });
      this.#parts.blocks.endBlock(blockId, 'done');
      return { status: 'failed', error: { code, message } };
    }
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
    const { log } = this.#options;
    const { calls, execution } = this.#parts;
    let rawArgs: unknown;
    try {
      rawArgs = request.arguments.trim() === '' ? {} : JSON.parse(request.arguments);
    } catch {
      return execution.fail(
        request.id,
        blockId,
        'invalid_arguments',
        `arguments are not valid JSON: ${request.arguments.slice(0, 200)}`,
      );
    }
    calls.setArgs(request.id, rawArgs);
    if (request.name === LOAD_SKILL_TOOL)
      return handleLoadSkill(this.#parts, request, blockId, rawArgs, loadedSkills);
    const host = this.#hostTools.get(request.name);
    if (host !== undefined)
      return requestHostResult(this.#parts, host, request, blockId, rawArgs, hostPending);
    const tool = this.#options.tools.find((candidate) => candidate.name === request.name);
    if (tool === undefined || (tool.requiresSkill !== undefined && !loadedSkills.has(tool.requiresSkill))) {
      return execution.fail(
        request.id,
        blockId,
        'unknown_tool',
        `no tool named ${request.name} is available`,
      );
    }
    const vetted = await execution.validateAndVet(request, blockId, rawArgs, (args) =>
      validateWith(tool.parameters, args),
    );
    if ('failed' in vetted) return vetted.failed;
    const args = vetted.args;
    log.append({ type: 'block.updated', blockId, kind: 'tool', toolCallId: request.id, args });
    if (tool.effect === 'write' && (await this.#needsApproval(tool, request.id, args)))
      return requestConfirmation(this.#parts, tool, request, blockId, args, pending);
    return execution.run(tool, request.id, blockId, args);
  }

  /**
   * Whether this call of a write tool waits for the owner: always, unless the tool decides from its
   * arguments (`needsApproval`). A decision that throws asks: the safe side of a write.
   */
  async #needsApproval(tool: AnyTool, toolCallId: string, args: unknown): Promise<boolean> {
    if (tool.needsApproval === undefined) return true;
    try {
      return await tool.needsApproval(
        args,
        this.#parts.execution.toolContext(toolCallId, this.#options.signal),
      );
    } catch {
      return true;
    }
  }

  /** Log the end of one model call: its number in the run, why it ended, what it cost. */
  #stepFinished(step: number, turn: ModelTurn): void {
    this.#options.log.append({
      type: 'step.finished',
      step,
      finishReason: turn.finishReason,
      ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    });
  }

  /**
   * An answer the provider cut at the output limit, or filtered, would otherwise end like a whole
   * one: the person reading it is told, in a block that stays after a refresh.
   */
  #noteCutShort(turn: ModelTurn): void {
    const note = cutShortNote(this.#messages, turn.finishReason);
    if (note === undefined) return;
    const blockId = this.#parts.blocks.newBlockId();
    this.#options.log.append({ type: 'block.started', blockId, kind: 'error' });
    this.#options.log.append({ type: 'block.delta', blockId, text: note });
    this.#parts.blocks.endBlock(blockId, 'done');
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
    this.#parts.calls.clear();
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
        this.#parts.calls.settle('cancelled', `run_cancelled: ${reason}`);
      } else this.#parts.calls.settle('failed', `runtime_error: ${messageOf(error)}`);
      throw error;
    }
  }

  /** Who runs a tool of that name, and what kind of call it is (`load_skill` reads; unknown: read). */
  #classify(name: string): ToolClassification {
    if (this.#hostTools.has(name)) return { executor: 'host', effect: 'host' };
    if (name === LOAD_SKILL_TOOL) return { executor: 'server', effect: 'read' };
    return {
      executor: 'server',
      effect: this.#options.tools.find((tool) => tool.name === name)?.effect ?? 'read',
    };
  }
}
