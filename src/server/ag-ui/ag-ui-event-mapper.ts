import {
  addTokenUsage,
  type Block,
  createMessageState,
  type LoggedRunEvent,
  type MessageState,
  type RunSnapshotEvent,
  reduceOwned,
  type TokenUsage,
  type ToolBlock,
} from '../../protocol/index.ts';

import { type AgUiTerminal, terminalOf } from './ag-ui-terminal.ts';

/** One AG-UI event as it goes on the wire (`type` is AG-UI's `EventType`). */
export type AgUiEvent = { type: string } & Record<string, unknown>;

/** What the face has sent for one block. */
interface Sent {
  /** The AG-UI message id of a text or reasoning block. */
  messageId: string;
  /** A text, reasoning or tool call the face opened and has not yet closed. */
  open: boolean;
  /** A tool call's arguments went out whole (from `args`), so its streamed deltas are not sent. */
  argsWhole: boolean;
  /** Some of a tool call's arguments went out. */
  argsSent: boolean;
  resultSent: boolean;
}

const TOOL_ENDED: ReadonlySet<ToolBlock['status']> = new Set([
  'done',
  'failed',
  'rejected',
  'cancelled',
  'interrupted',
]);

/**
 * Turns a run's native events into AG-UI events (`@ag-ui/core` 1.0). It folds every event with the
 * same `reduce()` as every other face and is deterministic: the same log gives the same events, so
 * the face maps each event once and every reader (live or replaying) gets the same frames.
 *
 * One native run is one assistant message; on AG-UI it is one AG-UI run per stretch (its start, and
 * each continuation after a pause), because AG-UI ends a run at an interrupt and resumes with a new
 * one. The mapper emits what happens inside a stretch; where a stretch ends it records an
 * `AgUiTerminal` instead of events, for the stream to write with its own ids.
 *
 * - reasoning block → `REASONING_START`, `REASONING_MESSAGE_START/CONTENT/END`, `REASONING_END`
 * - answer block → `TEXT_MESSAGE_START/CONTENT/END` (role `assistant`)
 * - tool block → `TOOL_CALL_START/ARGS/END` once its arguments are known, `TOOL_CALL_RESULT` when it
 *   ends (not for the client's own tools: the client already holds the result it sent)
 * - confirm block → nothing: the pause becomes `RUN_FINISHED` with an interrupt per pending write
 * - error block → nothing: its run ends with `RUN_ERROR`, which carries the message
 * - `run.hint` → `CUSTOM` `runstream.hint`
 */
export class AgUiEventMapper {
  #state: MessageState = createMessageState();
  readonly #sent = new Map<string, Sent>();
  /** The client's calls: their results came from the client, not from the run. */
  readonly #clientCalls = new Set<string>();
  /** The assistant message the next tool calls belong to (the answer before them, or the first call). */
  #parentMessageId: string | undefined;
  /** Seqs of the events that ended a stretch, in order, each with how its AG-UI run ended. */
  readonly #terminals = new Map<number, AgUiTerminal>();
  readonly #endings: number[] = [];
  /** What the current stretch's model calls cost: an AG-UI run reports its own calls only. */
  #stretchUsage: TokenUsage | undefined;

  get state(): MessageState {
    return this.#state;
  }

  /** How the AG-UI run ended at this seq, when a stretch ended there. */
  terminalAt(seq: number): AgUiTerminal | undefined {
    return this.#terminals.get(seq);
  }

  /** The seqs where stretches ended, oldest first. */
  get endings(): readonly number[] {
    return this.#endings;
  }

  /** For a text or reasoning block's deltas: their event type and AG-UI message id. */
  textTarget(blockId: string): { type: string; messageId: string } | undefined {
    const block = this.#block(blockId);
    const sent = this.#sent.get(blockId);
    if (block === undefined || sent === undefined) return undefined;
    if (block.kind === 'answer') return { type: 'TEXT_MESSAGE_CONTENT', messageId: sent.messageId };
    if (block.kind === 'reasoning') return { type: 'REASONING_MESSAGE_CONTENT', messageId: sent.messageId };
    return undefined;
  }

  push(event: LoggedRunEvent | RunSnapshotEvent): AgUiEvent[] {
    this.#state = reduceOwned(this.#state, event);
    const out: AgUiEvent[] = [];
    const timestamp = event.at;
    const emit = (type: string, fields: Record<string, unknown>) => {
      out.push({ type, ...fields, timestamp });
    };
    switch (event.type) {
      case 'run.snapshot':
        this.#fromSnapshot(emit, event.seq);
        break;
      case 'block.started': {
        const block = this.#block(event.blockId);
        if (block !== undefined) this.#start(block, emit, event.kind === 'tool' ? event.args : undefined);
        break;
      }
      case 'block.delta': {
        const block = this.#block(event.blockId);
        const sent = this.#sent.get(event.blockId);
        if (block === undefined || sent === undefined || !sent.open || event.text === '') break;
        if (block.kind === 'answer' || block.kind === 'reasoning') {
          const target = this.textTarget(block.blockId);
          if (target !== undefined) emit(target.type, { messageId: target.messageId, delta: event.text });
        } else if (block.kind === 'tool' && !sent.argsWhole) {
          sent.argsSent = true;
          emit('TOOL_CALL_ARGS', { toolCallId: block.toolCallId, delta: event.text });
        }
        break;
      }
      case 'block.updated': {
        const block = this.#block(event.blockId);
        if (block?.kind !== 'tool') break;
        if (event.kind === 'tool' && (event.args !== undefined || block.status !== 'pending'))
          this.#endCall(block, emit);
        if (TOOL_ENDED.has(block.status)) this.#result(block, emit);
        break;
      }
      case 'block.ended': {
        const block = this.#block(event.blockId);
        if (block !== undefined) this.#end(block, emit);
        break;
      }
      case 'run.hint':
        emit('CUSTOM', { name: 'runstream.hint', value: { code: event.code, text: event.text } });
        break;
      case 'run.paused':
        if (event.reason === 'tool_result')
          for (const call of event.pending) this.#clientCalls.add(call.toolCallId);
        this.#closeAll(emit);
        this.#parentMessageId = undefined;
        this.#recordTerminal(event.seq);
        break;
      case 'run.resumed':
        this.#parentMessageId = undefined;
        this.#stretchUsage = undefined;
        break;
      case 'step.finished':
        this.#stretchUsage = addTokenUsage(this.#stretchUsage, event.usage);
        break;
      case 'run.finished':
        this.#closeAll(emit);
        this.#recordTerminal(event.seq);
        break;
      case 'run.started':
        this.#stretchUsage = undefined;
        break;
    }
    return out;
  }

  /** The AG-UI id of a block's message: unique in the thread, the same on every replay. */
  #messageIdOf(block: Block): string {
    return `${this.#state.messageId ?? this.#state.runId ?? 'msg'}-${block.blockId}`;
  }

  #start(block: Block, emit: (type: string, fields: Record<string, unknown>) => void, args: unknown): void {
    const messageId = this.#messageIdOf(block);
    const sent: Sent = { messageId, open: true, argsWhole: false, argsSent: false, resultSent: false };
    if (block.kind === 'reasoning') {
      this.#parentMessageId = undefined;
      this.#sent.set(block.blockId, sent);
      emit('REASONING_START', { messageId });
      emit('REASONING_MESSAGE_START', { messageId, role: 'reasoning' });
    } else if (block.kind === 'answer') {
      this.#parentMessageId = messageId;
      this.#sent.set(block.blockId, sent);
      emit('TEXT_MESSAGE_START', { messageId, role: 'assistant' });
    } else if (block.kind === 'tool') {
      // Tool calls belong to an assistant message: the answer the model wrote before them, or else
      // one the first call of the turn names (the client creates it), shared by the calls after it.
      this.#parentMessageId ??= messageId;
      this.#sent.set(block.blockId, sent);
      emit('TOOL_CALL_START', {
        toolCallId: block.toolCallId,
        toolCallName: block.name,
        parentMessageId: this.#parentMessageId,
      });
      if (args !== undefined) {
        sent.argsWhole = true;
        sent.argsSent = true;
        emit('TOOL_CALL_ARGS', { toolCallId: block.toolCallId, delta: JSON.stringify(args) });
      }
    } else if (block.kind === 'error') {
      this.#parentMessageId = undefined;
    }
  }

  /** A tool call's arguments are complete: whole arguments if none went out yet, then the end. */
  #endCall(block: ToolBlock, emit: (type: string, fields: Record<string, unknown>) => void): void {
    const sent = this.#sent.get(block.blockId);
    if (sent === undefined || !sent.open) return;
    if (!sent.argsSent && block.args !== undefined) {
      sent.argsSent = true;
      emit('TOOL_CALL_ARGS', { toolCallId: block.toolCallId, delta: JSON.stringify(block.args) });
    }
    sent.open = false;
    emit('TOOL_CALL_END', { toolCallId: block.toolCallId });
  }

  #result(block: ToolBlock, emit: (type: string, fields: Record<string, unknown>) => void): void {
    const sent = this.#sent.get(block.blockId);
    if (sent === undefined || sent.resultSent || this.#clientCalls.has(block.toolCallId)) return;
    if (sent.open) this.#endCall(block, emit);
    sent.resultSent = true;
    emit('TOOL_CALL_RESULT', {
      messageId: `${sent.messageId}-result`,
      toolCallId: block.toolCallId,
      content: resultContent(block),
      role: 'tool',
    });
  }

  #end(block: Block, emit: (type: string, fields: Record<string, unknown>) => void): void {
    const sent = this.#sent.get(block.blockId);
    if (sent === undefined) return;
    if (block.kind === 'tool') {
      this.#endCall(block, emit);
      if (TOOL_ENDED.has(block.status)) this.#result(block, emit);
      return;
    }
    if (!sent.open) return;
    sent.open = false;
    if (block.kind === 'reasoning') {
      emit('REASONING_MESSAGE_END', { messageId: sent.messageId });
      emit('REASONING_END', { messageId: sent.messageId });
    } else if (block.kind === 'answer') {
      emit('TEXT_MESSAGE_END', { messageId: sent.messageId });
    }
  }

  /** Nothing may stay open when an AG-UI run ends: the log closes every block first, this is a guard. */
  #closeAll(emit: (type: string, fields: Record<string, unknown>) => void): void {
    for (const block of this.#state.blocks) if (this.#sent.get(block.blockId)?.open) this.#end(block, emit);
  }

  /**
   * The log no longer holds the run's start (a restart, another instance, a very long run): every
   * block as if it had streamed whole, so a reader from here has what it would have had, and the
   * mapper knows what is open.
   */
  #fromSnapshot(emit: (type: string, fields: Record<string, unknown>) => void, seq: number): void {
    const state = this.#state;
    // The reader gets every block up to here as this AG-UI run's, so it counts every call so far.
    this.#stretchUsage = state.usage ?? undefined;
    if (state.pause?.reason === 'tool_result')
      for (const call of state.pause.pending) this.#clientCalls.add(call.toolCallId);
    for (const block of state.blocks) {
      this.#start(block, emit, undefined);
      const sent = this.#sent.get(block.blockId);
      if (sent === undefined) continue;
      if ((block.kind === 'answer' || block.kind === 'reasoning') && block.text !== '') {
        const target = this.textTarget(block.blockId);
        if (target !== undefined) emit(target.type, { messageId: target.messageId, delta: block.text });
      }
      if (block.kind === 'tool') {
        if (block.argsText !== '' && block.args === undefined) {
          sent.argsSent = true;
          emit('TOOL_CALL_ARGS', { toolCallId: block.toolCallId, delta: block.argsText });
        }
        if (block.args !== undefined || block.status !== 'pending' || block.endedAt !== null)
          this.#endCall(block, emit);
        if (TOOL_ENDED.has(block.status)) this.#result(block, emit);
      } else if (block.endedAt !== null) this.#end(block, emit);
    }
    if (state.status === 'paused' || ENDED.has(state.status)) {
      this.#closeAll(emit);
      this.#recordTerminal(seq);
    }
  }

  #recordTerminal(seq: number): void {
    const terminal = terminalOf(this.#state, this.#stretchUsage);
    if (terminal === undefined) return;
    this.#terminals.set(seq, terminal);
    this.#endings.push(seq);
  }

  #block(blockId: string): Block | undefined {
    const blocks = this.#state.blocks;
    for (let index = blocks.length - 1; index >= 0; index -= 1)
      if ((blocks[index] as Block).blockId === blockId) return blocks[index];
    return undefined;
  }
}

const ENDED: ReadonlySet<MessageState['status']> = new Set([
  'completed',
  'cancelled',
  'failed',
  'interrupted',
]);

/** A tool call's result as a tool message's text: the result itself, or what became of the call. */
function resultContent(block: ToolBlock): string {
  if (block.status === 'done')
    return typeof block.result === 'string' ? block.result : JSON.stringify(block.result ?? null);
  return JSON.stringify({
    status: block.status,
    ...(block.error === undefined ? {} : { error: block.error }),
    ...(block.result === undefined ? {} : { result: block.result }),
  });
}
