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
import {
  approvalRequestItem,
  findBlock,
  functionCallEvents,
  functionCallItem,
  guardedCall,
  mcpCallItem,
  type PlainOutputItem,
  plainItemId,
  textDoneEvents,
  textItem,
  wholeMessageEvents,
} from './plain-items.ts';
import {
  buildStretchResponse,
  type Stretch,
  type StretchStatus,
  stretchResponseId,
} from './plain-stretch.ts';
import { type ResponseContext, type ResponseObject, usageOf } from './response-object.ts';
import { type DeltaTarget, deltaEventOf, type ResponsesStreamEvent } from './responses-event-mapper.ts';

/**
 * The plain (OpenAI-compatible) projection of a run's log: what a client that knows only OpenAI's
 * Responses API can read. It folds every event with the same `reduce()` as every other face, and cuts
 * the run into **stretches**, each a response of its own as OpenAI has it: the run's start up to its
 * first pause, then each resume up to the next pause or the end. A pause for host calls ends the
 * stretch `completed` with its `function_call` items; a pause for confirmations ends it `completed`
 * with `mcp_approval_request` items; the answer to either (a new request) continues the same run as
 * a new response whose `previous_response_id` is the one before. Sequence numbers start at 0 in each
 * stretch and are deterministic: a replay of the log yields the same events with the same numbers.
 */
export class PlainResponsesMapper {
  readonly #context: ResponseContext;
  readonly #hostToolNames: ReadonlySet<string>;
  #state: MessageState = createMessageState();
  /**
   * What the current stretch's model calls cost: each stretch is a response of its own, and an
   * OpenAI response's `usage` counts its own calls only (a chain of responses is summed by the reader).
   */
  #stretchUsage: TokenUsage | undefined;
  #sequence = 0;
  #current: Stretch | null = null;
  readonly #stretches = new Map<string, Stretch>();
  #last: Stretch | null = null;
  /** Output index of each item key in its stretch. */
  readonly #indexes = new Map<string, number>();
  /** Each text block's delta target, made at its first delta (`null`: its deltas have no event). */
  readonly #deltaTargets = new Map<string, DeltaTarget | null>();
  /** Which stretch's resume answered each host call. */
  readonly #resumedBy = new Map<string, string>();

  constructor(context: ResponseContext) {
    this.#context = context;
    this.#hostToolNames = new Set(context.tools.map((tool) => tool.name));
  }

  get state(): MessageState {
    return this.#state;
  }

  stretch(id: string): Stretch | undefined {
    return this.#stretches.get(id);
  }

  /** The newest stretch. */
  get last(): Stretch | null {
    return this.#last;
  }

  /** The first stretch that began after native seq `seq`. */
  stretchAfter(seq: number): Stretch | undefined {
    for (const stretch of this.#stretches.values()) if (stretch.startSeq > seq) return stretch;
    return undefined;
  }

  /** The id of the stretch whose resume answered host call `callId` (or decided on write `callId`). */
  resumedBy(callId: string): string | undefined {
    return this.#resumedBy.get(callId);
  }

  /** The response of a stretch: as it ended, or as it stands while open. */
  response(stretch: Stretch): ResponseObject {
    return stretch.final ?? this.#build(stretch, 'in_progress');
  }

  push(event: LoggedRunEvent | RunSnapshotEvent): ResponsesStreamEvent[] {
    const previous = this.#state;
    this.#state = reduceOwned(previous, event);
    const out: ResponsesStreamEvent[] = [];
    const emit = (type: string, fields: Record<string, unknown> = {}) => {
      out.push(Object.assign({ type, sequence_number: this.#sequence }, fields));
      this.#sequence += 1;
    };
    const stretch = this.#current;
    switch (event.type) {
      case 'run.started':
        this.#begin(this.#context.id, event.seq, event.at, emit);
        break;
      case 'run.snapshot':
        this.#snapshot(event, emit);
        break;
      case 'run.resumed': {
        const id = stretchResponseId(this.#context.id, event.seq);
        for (const callId of event.toolCallIds) this.#resumedBy.set(callId, id);
        this.#begin(id, event.seq, event.at, emit);
        this.#current?.resumedCalls.push(...event.toolCallIds);
        break;
      }
      case 'block.started': {
        if (stretch === null) break;
        const block = findBlock(this.#state, event.blockId);
        if (block?.kind === 'answer' || block?.kind === 'reasoning') {
          const item = textItem(this.#context.id, block);
          const outputIndex = this.#add(stretch, block.blockId);
          emit('response.output_item.added', { output_index: outputIndex, item: { ...item, content: [] } });
          emit('response.content_part.added', {
            item_id: item.id,
            output_index: outputIndex,
            content_index: 0,
            part:
              block.kind === 'answer'
                ? { type: 'output_text', text: '', annotations: [] }
                : { type: 'reasoning_text', text: '' },
          });
        } else if (block?.kind === 'confirm') {
          const item = approvalRequestItem(this.#context.id, block, guardedCall(this.#state, block));
          const outputIndex = this.#add(stretch, block.blockId);
          emit('response.output_item.added', { output_index: outputIndex, item });
          emit('response.output_item.done', { output_index: outputIndex, item });
        }
        break;
      }
      case 'block.delta': {
        const mapped = this.deltaEvent(event, this.#sequence);
        if (mapped !== undefined) {
          out.push(mapped);
          this.#sequence += 1;
        }
        break;
      }
      case 'block.updated': {
        const block = findBlock(this.#state, event.blockId);
        if (stretch === null || block?.kind !== 'tool' || this.#hostToolNames.has(block.name)) break;
        // A server tool shows once it runs (a write only after its approval).
        if (block.status === 'running' && this.#indexOf(stretch, block.blockId) === undefined) {
          const outputIndex = this.#add(stretch, block.blockId);
          emit('response.output_item.added', { output_index: outputIndex, item: this.#mcpCall(block) });
        }
        break;
      }
      case 'block.ended': {
        const block = findBlock(this.#state, event.blockId);
        if (stretch === null || block === undefined) break;
        this.#ended(stretch, block, emit);
        break;
      }
      case 'run.paused': {
        if (stretch === null) break;
        if (event.reason === 'tool_result')
          for (const call of event.pending) {
            const block = this.#state.blocks.find(
              (candidate): candidate is ToolBlock =>
                candidate.kind === 'tool' && candidate.toolCallId === call.toolCallId,
            );
            if (block !== undefined) this.#emitFunctionCall(stretch, block, emit);
          }
        this.#end(stretch, event.seq, 'response.completed', 'completed', emit);
        break;
      }
      case 'step.finished':
        this.#stretchUsage = addTokenUsage(this.#stretchUsage, event.usage);
        break;
      case 'run.finished': {
        if (stretch === null) break;
        if (event.status === 'completed')
          this.#end(stretch, event.seq, 'response.completed', 'completed', emit);
        else if (event.status === 'cancelled')
          this.#end(stretch, event.seq, 'response.incomplete', 'cancelled', emit);
        else this.#end(stretch, event.seq, 'response.failed', 'failed', emit);
        break;
      }
    }
    return out;
  }

  /**
   * Take in a delta as `push` does, for a face that makes delta frames when read (most of a run): the
   * sequence number its event was given (`deltaEvent` makes that event again), or `null` for none.
   */
  pushDelta(event: Extract<LoggedRunEvent, { type: 'block.delta' }>): number | null {
    this.#state = reduceOwned(this.#state, event);
    if (this.deltaTarget(event.blockId) === undefined) return null;
    const sequence = this.#sequence;
    this.#sequence += 1;
    return sequence;
  }

  /** Where a text block's deltas go, fixed at its first delta (a text block lives in one stretch). */
  deltaTarget(blockId: string): DeltaTarget | undefined {
    const known = this.#deltaTargets.get(blockId);
    if (known !== undefined) return known ?? undefined;
    const outputIndex = this.#indexOf(this.#current, blockId);
    const block = outputIndex === undefined ? undefined : findBlock(this.#state, blockId);
    const target =
      outputIndex !== undefined && (block?.kind === 'answer' || block?.kind === 'reasoning')
        ? {
            type:
              block.kind === 'answer'
                ? ('response.output_text.delta' as const)
                : ('response.reasoning_text.delta' as const),
            itemId: plainItemId(this.#context.id, blockId, block.kind),
            outputIndex,
          }
        : null;
    this.#deltaTargets.set(blockId, target);
    return target ?? undefined;
  }

  /** The event of a delta taken in, with the sequence number it was given: the same every time. */
  deltaEvent(
    event: Extract<LoggedRunEvent, { type: 'block.delta' }>,
    sequenceNumber: number,
  ): ResponsesStreamEvent | undefined {
    const target = this.deltaTarget(event.blockId);
    return target === undefined ? undefined : deltaEventOf(target, sequenceNumber, event.text);
  }

  #begin(
    id: string,
    seq: number,
    at: number,
    emit: (type: string, fields?: Record<string, unknown>) => void,
  ) {
    const stretch: Stretch = {
      id,
      startSeq: seq,
      endSeq: null,
      previousId: this.#last?.id ?? this.#context.previousResponseId,
      createdAt: at,
      items: [],
      resumedCalls: [],
      final: null,
    };
    this.#stretches.set(id, stretch);
    this.#current = stretch;
    this.#last = stretch;
    this.#sequence = 0;
    this.#stretchUsage = undefined;
    const response = this.#build(stretch, 'in_progress');
    emit('response.created', { response });
    emit('response.in_progress', { response });
  }

  /**
   * The log no longer holds the run's start (a restart, a very long run): one stretch with the
   * run's id holds every item as it stands, ended as the run stands.
   */
  #snapshot(event: RunSnapshotEvent, emit: (type: string, fields?: Record<string, unknown>) => void) {
    this.#begin(this.#context.id, event.seq, event.at, emit);
    // This one stretch stands for every call the snapshot's message holds.
    this.#stretchUsage = this.#state.usage ?? undefined;
    const stretch = this.#current as Stretch;
    for (const block of this.#state.blocks) {
      if (block.kind === 'tool' && this.#hostToolNames.has(block.name)) continue;
      if (block.kind === 'tool' && block.status !== 'running' && block.endedAt === null) continue;
      if (block.kind === 'confirm' && block.status !== 'pending') continue;
      const item = this.#itemOf(block);
      if (item === undefined) continue;
      const outputIndex = this.#add(stretch, block.blockId);
      emit('response.output_item.added', { output_index: outputIndex, item });
      if (block.endedAt !== null || block.kind === 'confirm')
        emit('response.output_item.done', { output_index: outputIndex, item });
    }
    const status = this.#state.status;
    if (status === 'paused') {
      for (const call of this.#state.pause?.pending ?? []) {
        const block = this.#state.blocks.find(
          (candidate): candidate is ToolBlock =>
            candidate.kind === 'tool' &&
            candidate.toolCallId === call.toolCallId &&
            this.#hostToolNames.has(candidate.name),
        );
        if (block !== undefined) this.#emitFunctionCall(stretch, block, emit);
      }
      this.#end(stretch, event.seq, 'response.completed', 'completed', emit);
    } else if (status === 'completed') this.#end(stretch, event.seq, 'response.completed', 'completed', emit);
    else if (status === 'cancelled') this.#end(stretch, event.seq, 'response.incomplete', 'cancelled', emit);
    else if (status === 'failed' || status === 'interrupted')
      this.#end(stretch, event.seq, 'response.failed', 'failed', emit);
  }

  #ended(stretch: Stretch, block: Block, emit: (type: string, fields?: Record<string, unknown>) => void) {
    if (block.kind === 'answer' || block.kind === 'reasoning') {
      const outputIndex = this.#indexOf(stretch, block.blockId);
      if (outputIndex === undefined) return;
      for (const [type, fields] of textDoneEvents(textItem(this.#context.id, block), outputIndex))
        emit(type, fields);
    } else if (block.kind === 'error') {
      // An error notice is a whole message, streamed as OpenAI streams one.
      const outputIndex = this.#add(stretch, block.blockId);
      for (const [type, fields] of wholeMessageEvents(textItem(this.#context.id, block), outputIndex))
        emit(type, fields);
    } else if (block.kind === 'tool' && !this.#hostToolNames.has(block.name)) {
      let outputIndex = this.#indexOf(stretch, block.blockId);
      const item = this.#mcpCall(block);
      if (outputIndex === undefined) {
        outputIndex = this.#add(stretch, block.blockId);
        emit('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, status: 'in_progress' },
        });
      }
      emit('response.mcp_call_arguments.done', {
        item_id: item.id,
        output_index: outputIndex,
        arguments: item.arguments,
      });
      emit(item.status === 'failed' ? 'response.mcp_call.failed' : 'response.mcp_call.completed', {
        item_id: item.id,
        output_index: outputIndex,
      });
      emit('response.output_item.done', { output_index: outputIndex, item });
    }
  }

  #emitFunctionCall(
    stretch: Stretch,
    block: ToolBlock,
    emit: (type: string, fields?: Record<string, unknown>) => void,
  ) {
    const key = `call:${block.blockId}`;
    if (this.#indexOf(stretch, key) !== undefined) return;
    const outputIndex = this.#add(stretch, key);
    for (const [type, fields] of functionCallEvents(functionCallItem(this.#context.id, block), outputIndex))
      emit(type, fields);
  }

  #end(
    stretch: Stretch,
    seq: number,
    type: string,
    status: Exclude<StretchStatus, 'in_progress'>,
    emit: (type: string, fields?: Record<string, unknown>) => void,
  ) {
    stretch.endSeq = seq;
    stretch.final = this.#build(stretch, status);
    this.#current = null;
    emit(type, { response: stretch.final });
  }

  #mcpCall(block: ToolBlock) {
    const card = this.#state.blocks.find(
      (candidate) => candidate.kind === 'confirm' && candidate.toolCallId === block.toolCallId,
    );
    return mcpCallItem(
      this.#context.id,
      block,
      card === undefined ? null : plainItemId(this.#context.id, card.blockId, 'confirm'),
    );
  }

  #itemOf(block: Block): PlainOutputItem | undefined {
    if (block.kind === 'answer' || block.kind === 'reasoning' || block.kind === 'error')
      return textItem(this.#context.id, block);
    if (block.kind === 'confirm')
      return approvalRequestItem(this.#context.id, block, guardedCall(this.#state, block));
    if (block.kind === 'tool' && !this.#hostToolNames.has(block.name)) return this.#mcpCall(block);
    return undefined;
  }

  #add(stretch: Stretch, key: string): number {
    const index = stretch.items.length;
    stretch.items.push(key);
    this.#indexes.set(`${stretch.id} ${key}`, index);
    return index;
  }

  #indexOf(stretch: Stretch | null, key: string): number | undefined {
    return stretch === null ? undefined : this.#indexes.get(`${stretch.id} ${key}`);
  }

  #build(stretch: Stretch, status: StretchStatus): ResponseObject {
    return buildStretchResponse(
      this.#context,
      this.#state,
      stretch,
      status,
      usageOf(this.#stretchUsage),
      (block, isCall) =>
        isCall && block.kind === 'tool' ? functionCallItem(this.#context.id, block) : this.#itemOf(block),
    );
  }
}
