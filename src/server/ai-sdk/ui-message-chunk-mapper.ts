import {
  type Block,
  type ConfirmBlock,
  createMessageState,
  type LoggedRunEvent,
  type MessageState,
  type RunSnapshotEvent,
  reduceOwned,
  type ToolBlock,
} from '../../protocol/index.ts';

import { finishChunk, startChunk, type UiMessageChunk, usageChunk } from './ai-sdk-message-metadata.ts';

export type { AiSdkMessageMetadata, AiSdkUsage, UiMessageChunk } from './ai-sdk-message-metadata.ts';
export { startChunk } from './ai-sdk-message-metadata.ts';

/** A delta's chunk type by its block's kind; an error block's text goes in the `error` chunk instead. */
const DELTA_TYPES: Partial<Record<Block['kind'], string>> = {
  answer: 'text-delta',
  reasoning: 'reasoning-delta',
  tool: 'tool-input-delta',
};

/** Tool statuses after which a call has its outcome. */
const FINAL_TOOL_STATUSES: ReadonlySet<ToolBlock['status']> = new Set([
  'done',
  'failed',
  'rejected',
  'cancelled',
  'interrupted',
]);

/**
 * Turns a run's native events into UI message stream chunks. It folds every event with the same
 * `reduce()` as every other face, so tool inputs and outputs come from the reduced blocks, and it is
 * deterministic: the ids of parts are the blocks' ids (text and reasoning) and the tool call ids
 * (tools; a confirmation's approval id is its confirm block's id), so a replay of the log from its
 * start yields the same chunks.
 *
 * One run is one assistant message (`start` carries its `messageId`). A pause (a confirmation, a host
 * tool call) ends a step with `finish` (`tool-calls`); the decision's continuation goes on in the
 * same message with a new step. Cancelled runs end with `abort`, failed ones with `error`. The run's
 * usage so far goes in the message metadata: a `message-metadata` chunk after each model call that
 * reported some, and on every `finish`.
 */
export class UiMessageChunkMapper {
  #state: MessageState = createMessageState();
  #started = false;
  #stepOpen = false;
  /** Tool calls whose `tool-input-available`, and whose outcome chunk, were sent. */
  readonly #inputsSent = new Set<string>();
  readonly #outputsSent = new Set<string>();
  /** Confirmations whose approval request, and whose response, were sent. */
  readonly #approvalsRequested = new Set<string>();
  readonly #approvalsResponded = new Set<string>();
  /** Each block's delta chunk type, fixed at its start (`null`: its deltas have no chunk). */
  readonly #deltaTypes = new Map<string, string | null>();

  get state(): MessageState {
    return this.#state;
  }

  /** The chunk type of a block's deltas (`undefined`: none, or an unknown block). */
  #deltaType(blockId: string): string | undefined {
    return this.#deltaTypes.get(blockId) ?? undefined;
  }

  /** The chunk of a delta taken in by `push`: the same chunk every time. */
  deltaChunk(event: Extract<LoggedRunEvent, { type: 'block.delta' }>): UiMessageChunk | undefined {
    const type = this.#deltaType(event.blockId);
    if (type === undefined) return undefined;
    if (type === 'tool-input-delta') {
      const block = this.#block(event.blockId);
      if (block?.kind !== 'tool') return undefined;
      return { type, toolCallId: block.toolCallId, inputTextDelta: event.text };
    }
    return { type, id: event.blockId, delta: event.text };
  }

  push(event: LoggedRunEvent | RunSnapshotEvent): UiMessageChunk[] {
    this.#state = reduceOwned(this.#state, event);
    const out: UiMessageChunk[] = [];
    switch (event.type) {
      case 'run.started':
        this.#start(out);
        break;
      case 'run.snapshot':
        this.#snapshot(out);
        break;
      case 'block.started': {
        const block = this.#block(event.blockId);
        if (block !== undefined) this.#blockStarted(block, out);
        break;
      }
      case 'block.delta': {
        const chunk = this.deltaChunk(event);
        if (chunk !== undefined) out.push(chunk);
        break;
      }
      case 'block.updated': {
        const block = this.#block(event.blockId);
        if (block?.kind === 'tool') this.#toolProgress(block, out);
        else if (block?.kind === 'confirm') this.#approvalResponse(block, out);
        break;
      }
      case 'block.ended': {
        const block = this.#block(event.blockId);
        if (block !== undefined) this.#blockEnded(block, out);
        break;
      }
      case 'step.finished':
        // What the run cost so far, after each model call that reported it: the SDK merges it into
        // the message's metadata, so a client sees it grow and keeps it after an `abort` too.
        if (event.usage !== undefined && this.#state.usage !== null) out.push(usageChunk(this.#state.usage));
        break;
      case 'run.paused':
        this.#finishStep(out);
        out.push(finishChunk('tool-calls', this.#state.usage));
        break;
      case 'run.resumed':
        this.#startStep(out);
        break;
      case 'run.finished':
        this.#finished(out);
        break;
    }
    return out;
  }

  #start(out: UiMessageChunk[]): void {
    if (this.#started) return;
    this.#started = true;
    const { messageId, runId, conversationId, usage } = this.#state;
    out.push(startChunk(messageId, runId, conversationId, usage));
    this.#startStep(out);
  }

  #startStep(out: UiMessageChunk[]): void {
    if (this.#stepOpen) return;
    this.#stepOpen = true;
    out.push({ type: 'start-step' });
  }

  #finishStep(out: UiMessageChunk[]): void {
    if (!this.#stepOpen) return;
    this.#stepOpen = false;
    out.push({ type: 'finish-step' });
  }

  #blockStarted(block: Block, out: UiMessageChunk[], withOutcome = true): void {
    this.#start(out);
    this.#startStep(out);
    this.#deltaTypes.set(block.blockId, DELTA_TYPES[block.kind] ?? null);
    if (block.kind === 'answer') out.push({ type: 'text-start', id: block.blockId });
    else if (block.kind === 'reasoning') out.push({ type: 'reasoning-start', id: block.blockId });
    else if (block.kind === 'tool') {
      out.push({
        type: 'tool-input-start',
        toolCallId: block.toolCallId,
        toolName: block.name,
        ...(block.title === '' ? {} : { title: block.title }),
      });
      this.#toolProgress(block, out, withOutcome);
    } else if (block.kind === 'confirm') this.#approvalRequest(block, out);
  }

  #blockEnded(block: Block, out: UiMessageChunk[]): void {
    if (block.kind === 'answer') out.push({ type: 'text-end', id: block.blockId });
    else if (block.kind === 'reasoning') out.push({ type: 'reasoning-end', id: block.blockId });
    else if (block.kind === 'tool') this.#toolProgress(block, out);
    else if (block.kind === 'confirm') this.#approvalResponse(block, out);
  }

  /** A tool call's input once known (validated arguments, or any outcome), then its outcome once final. */
  #toolProgress(block: ToolBlock, out: UiMessageChunk[], withOutcome = true): void {
    const id = block.toolCallId;
    if (!this.#inputsSent.has(id) && block.args === undefined && FINAL_TOOL_STATUSES.has(block.status)) {
      // Ended before its arguments validated: the SDK's `tool-input-error`. A `tool-input-available`
      // would have the client run a tool of its own (`onToolCall`) for a call the run already failed.
      if (!withOutcome) return;
      this.#inputsSent.add(id);
      this.#outputsSent.add(id);
      out.push({
        type: 'tool-input-error',
        toolCallId: id,
        toolName: block.name,
        input: parsedOr(block.argsText),
        errorText: toolErrorText(block),
        ...(block.title === '' ? {} : { title: block.title }),
      });
      return;
    }
    if (!this.#inputsSent.has(id) && (block.args !== undefined || block.status !== 'pending')) {
      this.#inputsSent.add(id);
      out.push({
        type: 'tool-input-available',
        toolCallId: id,
        toolName: block.name,
        input: block.args ?? parsedOr(block.argsText),
        ...(block.title === '' ? {} : { title: block.title }),
      });
    }
    if (!withOutcome || this.#outputsSent.has(id) || !FINAL_TOOL_STATUSES.has(block.status)) return;
    this.#outputsSent.add(id);
    const unanswered = this.#unansweredCard(id);
    if (block.status === 'done')
      out.push({ type: 'tool-output-available', toolCallId: id, output: outputOf(block) });
    else if (block.status === 'rejected') out.push({ type: 'tool-output-denied', toolCallId: id });
    else if (unanswered !== undefined) {
      // A card that expires unanswered (its run stopped): the SDK allows an error only after an
      // approval, so it is a denial, with why; either way the write was not made.
      this.#approvalsResponded.add(unanswered.blockId);
      out.push({
        type: 'tool-approval-response',
        approvalId: unanswered.blockId,
        approved: false,
        reason: toolErrorText(block),
      });
      out.push({ type: 'tool-output-denied', toolCallId: id });
    } else out.push({ type: 'tool-output-error', toolCallId: id, errorText: toolErrorText(block) });
  }

  /** The confirm card of a call whose approval request was sent and never answered. */
  #unansweredCard(toolCallId: string): ConfirmBlock | undefined {
    for (const block of this.#state.blocks)
      if (
        block.kind === 'confirm' &&
        block.toolCallId === toolCallId &&
        block.decision === undefined &&
        this.#approvalsRequested.has(block.blockId) &&
        !this.#approvalsResponded.has(block.blockId)
      )
        return block;
    return undefined;
  }

  /**
   * A write waiting for the owner: the AI SDK's own tool approval. The approval id is the confirm
   * block's id; the card's title, object and facts go along as the approval's descriptor.
   */
  #approvalRequest(block: ConfirmBlock, out: UiMessageChunk[]): void {
    if (this.#approvalsRequested.has(block.blockId)) return;
    this.#approvalsRequested.add(block.blockId);
    const tool = this.#toolOf(block.toolCallId);
    // The approval needs the tool part: a card for a call the reader never saw (it cannot happen with
    // runstream's runtime) would break the client, so it is left out.
    if (tool === undefined) return;
    // Its input first (the outcome, if any, comes after the decision).
    this.#toolProgress(tool, out, false);
    out.push({
      type: 'tool-approval-request',
      approvalId: block.blockId,
      toolCallId: block.toolCallId,
      approvalDescriptor: { title: block.title, description: block.description, details: block.details },
    });
    this.#approvalResponse(block, out);
  }

  #approvalResponse(block: ConfirmBlock, out: UiMessageChunk[]): void {
    const decision = block.decision;
    if (decision === undefined || this.#approvalsResponded.has(block.blockId)) return;
    if (!this.#approvalsRequested.has(block.blockId) || this.#toolOf(block.toolCallId) === undefined) return;
    this.#approvalsResponded.add(block.blockId);
    out.push({
      type: 'tool-approval-response',
      approvalId: block.blockId,
      approved: decision.decision === 'approve',
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
  }

  #finished(out: UiMessageChunk[]): void {
    const { status, finishReason, error } = this.#state;
    if (status === 'interrupted') {
      // The error block tells the shopper to check whether a write went through; the SDK has no
      // error part and its `error` chunk would fail the chat, so the message says it as text.
      const explanation = this.#errorBlock();
      if (explanation !== undefined) {
        out.push({ type: 'text-start', id: explanation.blockId });
        out.push({ type: 'text-delta', id: explanation.blockId, delta: explanation.text });
        out.push({ type: 'text-end', id: explanation.blockId });
      }
    }
    this.#finishStep(out);
    if (status === 'cancelled') {
      // As the AI SDK ends a stream its server aborted: `abort`, with our stop reason, no `finish`.
      out.push({ type: 'abort', reason: finishReason ?? 'user_stop' });
      return;
    }
    if (status === 'failed') {
      // The error block's text is written for the person; the run's error is the machine's account.
      out.push({ type: 'error', errorText: this.#errorBlock()?.text ?? error?.message ?? 'the run failed' });
      out.push(finishChunk('error', this.#state.usage));
      return;
    }
    // `interrupted`: the AI SDK's own word for output that ended without its completion.
    out.push(finishChunk(status === 'interrupted' ? 'interrupted' : 'stop', this.#state.usage));
  }

  /**
   * The log no longer holds the run's start: the message as it stands, whole (text as one delta),
   * then where the run stands, so a reader that begins here builds the same message.
   */
  #snapshot(out: UiMessageChunk[]): void {
    this.#start(out);
    // Outcomes last: a write's card comes after its tool block, and the client takes a tool part's
    // approval request as its state, which must not overwrite the outcome.
    for (const block of this.#state.blocks) {
      this.#blockStarted(block, out, false);
      if (block.kind === 'answer' || block.kind === 'reasoning') {
        if (block.text !== '')
          out.push({
            type: block.kind === 'answer' ? 'text-delta' : 'reasoning-delta',
            id: block.blockId,
            delta: block.text,
          });
        if (block.endedAt !== null) this.#blockEnded(block, out);
      } else if (block.kind === 'tool' && !this.#inputsSent.has(block.toolCallId) && block.argsText !== '')
        // Arguments still streaming: the deltas that follow continue this text, not an empty one.
        out.push({ type: 'tool-input-delta', toolCallId: block.toolCallId, inputTextDelta: block.argsText });
    }
    for (const block of this.#state.blocks) if (block.kind === 'tool') this.#toolProgress(block, out);
    const { status } = this.#state;
    if (status === 'paused') {
      this.#finishStep(out);
      out.push(finishChunk('tool-calls', this.#state.usage));
    } else if (
      status === 'completed' ||
      status === 'cancelled' ||
      status === 'failed' ||
      status === 'interrupted'
    )
      this.#finished(out);
  }

  /** The newest error block with text: what the run's end says to the person. */
  #errorBlock(): { blockId: string; text: string } | undefined {
    const blocks = this.#state.blocks;
    for (let index = blocks.length - 1; index >= 0; index -= 1) {
      const block = blocks[index] as Block;
      if (block.kind === 'error' && block.text !== '') return block;
    }
    return undefined;
  }

  #toolOf(toolCallId: string): ToolBlock | undefined {
    for (const block of this.#state.blocks)
      if (block.kind === 'tool' && block.toolCallId === toolCallId) return block;
    return undefined;
  }

  #block(blockId: string): Block | undefined {
    // Nearly always the newest block.
    const blocks = this.#state.blocks;
    for (let index = blocks.length - 1; index >= 0; index -= 1)
      if ((blocks[index] as Block).blockId === blockId) return blocks[index];
    return undefined;
  }
}

/** The streamed argument text, parsed if it is JSON (the call failed before its arguments validated). */
function parsedOr(argsText: string): unknown {
  if (argsText === '') return {};
  try {
    return JSON.parse(argsText);
  } catch {
    return argsText;
  }
}

/** The tool's result; `null` stands for none, since the chunk needs an output. */
function outputOf(block: ToolBlock): unknown {
  return block.result === undefined ? null : block.result;
}

function toolErrorText(block: ToolBlock): string {
  if (block.error !== undefined) return block.error.message;
  if (block.status === 'cancelled') return 'the run was stopped before this tool call finished';
  if (block.status === 'interrupted') return 'the run was interrupted before this tool call finished';
  return 'the tool call failed';
}
