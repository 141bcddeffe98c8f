import {
  type Block,
  createMessageState,
  type LoggedRunEvent,
  type MessageState,
  reduceOwned,
} from '../../protocol/index.ts';
import {
  blockToItem,
  buildResponseObject,
  itemIdOf,
  type ResponseContext,
  type ResponseObject,
  stepUsageOf,
} from './response-object.ts';

/** Where a block's deltas go on the Responses stream (see `ResponsesEventMapper.deltaTarget`). */
export interface DeltaTarget {
  type:
    | 'response.output_text.delta'
    | 'response.reasoning_text.delta'
    | 'response.function_call_arguments.delta'
    | 'runstream.tool_call.arguments.delta';
  itemId: string;
  outputIndex: number;
}

/** The event of a delta with this target and sequence number, in either shape. */
export function deltaEventOf(
  target: DeltaTarget,
  sequence_number: number,
  delta: string,
): ResponsesStreamEvent {
  const { type, itemId: item_id, outputIndex: output_index } = target;
  if (type === 'response.output_text.delta')
    return { type, sequence_number, item_id, output_index, content_index: 0, delta, logprobs: [] };
  if (type === 'response.reasoning_text.delta')
    return { type, sequence_number, item_id, output_index, content_index: 0, delta };
  return { type, sequence_number, item_id, output_index, delta };
}

/** One event of the Responses stream: an OpenAI-style `type` and a `sequence_number` from 0. */
export type ResponsesStreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/**
 * Turns a run's native events into OpenAI Responses streaming events. It folds every event with the
 * same `reduce()` as every other face (no second engine), so items are built from the reduced
 * blocks, and it is deterministic: replaying a run's log from the start yields the same events with
 * the same `sequence_number`s, which is what `starting_after` and `Last-Event-ID` resume from.
 */
export class ResponsesEventMapper {
  readonly #context: ResponseContext;
  readonly #hostToolNames: ReadonlySet<string>;
  #state: MessageState = createMessageState();
  #sequence = 0;
  #created = false;
  readonly #outputIndex = new Map<string, number>();
  /** Each block's item id, made once (a delta asks for it every time). */
  readonly #itemIds = new Map<string, string>();
  /** Host calls whose `function_call_arguments.done` and `output_item.done` were sent. */
  readonly #callsDone = new Set<string>();
  /** A host call whose arguments arrived, finished with the next event that is not about it. */
  #held: string | undefined;
  /** Each block's delta target, made at its first delta (`null`: its deltas have no event). */
  readonly #deltaTargets = new Map<string, DeltaTarget | null>();
  /** Each item as last sent (added, done or updated), so an update that changes nothing is not sent. */
  readonly #sentItems = new Map<string, string>();

  constructor(context: ResponseContext) {
    this.#context = context;
    this.#hostToolNames = new Set(context.tools.map((tool) => tool.name));
  }

  get state(): MessageState {
    return this.#state;
  }

  /** The sequence number the next event will get (= how many events were produced). */
  get nextSequenceNumber(): number {
    return this.#sequence;
  }

  response(): ResponseObject {
    return buildResponseObject(this.#context, this.#state);
  }

  push(event: LoggedRunEvent): ResponsesStreamEvent[] {
    // Deltas are most of a run: mapped without the closure and the switch below (a held host call
    // is only finished by an event about another block).
    if (event.type === 'block.delta' && (this.#held === undefined || this.#held === event.blockId)) {
      this.#state = reduceOwned(this.#state, event);
      const mapped = this.deltaEvent(event, this.#sequence);
      if (mapped === undefined) return [];
      this.#sequence += 1;
      return [mapped];
    }
    const previous = this.#state;
    const out: ResponsesStreamEvent[] = [];
    const emit = (type: string, fields: Record<string, unknown> = {}) => {
      out.push(Object.assign({ type, sequence_number: this.#sequence }, fields));
      this.#sequence += 1;
    };
    // A host call held back by its arguments is finished by any event that is not about it.
    const held = this.#held;
    if (held !== undefined && !('blockId' in event && event.blockId === held)) {
      this.#held = undefined;
      const block = previous.blocks.find((candidate) => candidate.blockId === held);
      if (block?.kind === 'tool' && !this.#callsDone.has(held)) this.#finishCall(block, emit);
    }
    // The mapper's state is its own: deltas extend it in place (`reduceOwned`), nothing else holds it.
    this.#state = reduceOwned(previous, event);
    switch (event.type) {
      case 'run.started':
        this.#emitCreated(emit);
        break;
      case 'run.snapshot': {
        // The log no longer holds the run's start (a restart, a very long run): the items come whole,
        // then the event of where the run stands, so a reader still learns it waits or has ended.
        this.#emitCreated(emit);
        for (const block of this.#state.blocks) {
          const outputIndex = this.#indexOf(block.blockId);
          emit('response.output_item.added', { output_index: outputIndex, item: this.#sent(block) });
          const hostCallReady =
            block.kind === 'tool' &&
            this.#hostToolNames.has(block.name) &&
            (block.args !== undefined || block.status !== 'pending');
          if (block.endedAt !== null || hostCallReady) {
            this.#callsDone.add(block.blockId);
            emit('response.output_item.done', { output_index: outputIndex, item: this.#sent(block) });
          }
        }
        const status = this.#state.status;
        if (status === 'paused') emit('response.requires_action', { response: this.response() });
        else if (status === 'completed') emit('response.completed', { response: this.response() });
        else if (status === 'cancelled') emit('response.cancelled', { response: this.response() });
        else if (status === 'failed' || status === 'interrupted')
          emit('response.failed', { response: this.response() });
        break;
      }
      case 'block.started': {
        const block = this.#block(event.blockId);
        if (block === undefined) break;
        this.#emitCreated(emit);
        const outputIndex = this.#indexOf(block.blockId);
        const item = this.#sent(block);
        // As OpenAI streams a text item: added with no content, then its part added on its own
        // (readers that fold events, like the openai SDK's, would otherwise hold the part twice).
        emit('response.output_item.added', {
          output_index: outputIndex,
          item: 'content' in item ? { ...item, content: [] } : item,
        });
        if (block.kind === 'answer' || block.kind === 'reasoning')
          emit('response.content_part.added', {
            item_id: itemIdOf(block, false),
            output_index: outputIndex,
            content_index: 0,
            part: emptyPart(block.kind),
          });
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
        const block = this.#block(event.blockId);
        if (block === undefined) break;
        const outputIndex = this.#indexOf(block.blockId);
        if (
          block.kind === 'tool' &&
          this.#hostToolNames.has(block.name) &&
          !this.#callsDone.has(block.blockId)
        ) {
          // A host call is complete for the host once its arguments are validated, or once it
          // failed. The runtime logs a call's arguments before a failure that follows at once
          // (they fail the schema, a policy denies them): the call is held for one event, so
          // that its output_item.done says whether it waits for the host or already failed.
          if (block.status !== 'pending') {
            this.#held = undefined;
            this.#finishCall(block, emit);
          } else if (block.args !== undefined) this.#held = block.blockId;
        } else if (block.kind === 'tool' || block.kind === 'confirm') {
          this.#update(block, outputIndex, emit);
        }
        break;
      }
      case 'block.ended': {
        const block = this.#block(event.blockId);
        if (block === undefined) break;
        const outputIndex = this.#indexOf(block.blockId);
        const itemId = this.#itemId(block);
        if (block.kind === 'answer') {
          emit('response.output_text.done', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            text: block.text,
            logprobs: [],
          });
          emit('response.content_part.done', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            part: { type: 'output_text', text: block.text, annotations: [] },
          });
        } else if (block.kind === 'reasoning') {
          emit('response.reasoning_text.done', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            text: block.text,
          });
          emit('response.content_part.done', {
            item_id: itemId,
            output_index: outputIndex,
            content_index: 0,
            part: { type: 'reasoning_text', text: block.text },
          });
        }
        if (block.kind === 'tool' && this.#hostToolNames.has(block.name)) {
          if (!this.#callsDone.has(block.blockId)) this.#finishCall(block, emit);
          // The host's result arrived: the function_call item itself is long done; an extension
          // event only when the item changed (it failed, or was cancelled).
          else this.#update(block, outputIndex, emit);
        } else {
          emit('response.output_item.done', { output_index: outputIndex, item: this.#sent(block) });
        }
        break;
      }
      case 'run.hint':
        emit('runstream.hint', { code: event.code, text: event.text });
        break;
      case 'run.paused':
        emit('response.requires_action', { response: this.response() });
        break;
      case 'run.resumed':
        emit('response.resumed', {
          reason: event.reason,
          call_ids: event.toolCallIds,
          response: this.response(),
        });
        break;
      case 'step.finished':
        // Each model call, with what it cost where the provider said (a host may meter per call).
        emit('runstream.step.finished', {
          step: event.step,
          finish_reason: event.finishReason,
          ...(event.usage === undefined ? {} : { usage: stepUsageOf(event.usage) }),
        });
        break;
      case 'run.finished':
        emit(
          event.status === 'completed'
            ? 'response.completed'
            : event.status === 'cancelled'
              ? 'response.cancelled'
              : 'response.failed',
          { response: this.response() },
        );
        break;
    }
    return out;
  }

  /**
   * Take in a delta as `push` does, for a face that makes delta frames when read: the sequence number
   * its Responses event was given (`deltaEvent` makes that event again whenever asked), `null` when it
   * has none, or `undefined` when it must go through `push` instead (it finishes a held host call).
   */
  pushDelta(event: Extract<LoggedRunEvent, { type: 'block.delta' }>): number | null | undefined {
    if (this.#held !== undefined && this.#held !== event.blockId) return undefined;
    this.#state = reduceOwned(this.#state, event);
    if (this.deltaTarget(event.blockId) === undefined) return null;
    const sequence = this.#sequence;
    this.#sequence += 1;
    return sequence;
  }

  /**
   * Where a block's deltas go on this face: their event type, item and output index, fixed at its
   * first delta (a block's kind never changes, nor does its item id or index). `undefined` for a block
   * whose deltas have no event, or that the state does not hold.
   */
  deltaTarget(blockId: string): DeltaTarget | undefined {
    const known = this.#deltaTargets.get(blockId);
    if (known !== undefined) return known ?? undefined;
    const block = this.#block(blockId);
    if (block === undefined) return undefined;
    let type: DeltaTarget['type'] | undefined;
    if (block.kind === 'answer') type = 'response.output_text.delta';
    else if (block.kind === 'reasoning') type = 'response.reasoning_text.delta';
    else if (block.kind === 'tool')
      type = this.#hostToolNames.has(block.name)
        ? 'response.function_call_arguments.delta'
        : 'runstream.tool_call.arguments.delta';
    const target =
      type === undefined
        ? null
        : { type, itemId: this.#itemId(block), outputIndex: this.#indexOf(block.blockId) };
    this.#deltaTargets.set(blockId, target);
    return target ?? undefined;
  }

  /**
   * The Responses event of a delta taken in by `pushDelta` (or `push`), with the sequence number it was
   * given: the same event every time.
   */
  deltaEvent(
    event: Extract<LoggedRunEvent, { type: 'block.delta' }>,
    sequenceNumber: number,
  ): ResponsesStreamEvent | undefined {
    const target = this.deltaTarget(event.blockId);
    return target === undefined ? undefined : deltaEventOf(target, sequenceNumber, event.text);
  }

  #emitCreated(emit: (type: string, fields?: Record<string, unknown>) => void): void {
    if (this.#created) return;
    this.#created = true;
    const response = this.response();
    emit('response.created', { response: { ...response, status: 'in_progress' } });
    emit('response.in_progress', { response: { ...response, status: 'in_progress' } });
  }

  #finishCall(
    block: Block & { kind: 'tool' },
    emit: (type: string, fields?: Record<string, unknown>) => void,
  ): void {
    this.#callsDone.add(block.blockId);
    const item = this.#sent(block);
    const outputIndex = this.#indexOf(block.blockId);
    emit('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: outputIndex,
      name: block.name,
      arguments: 'arguments' in item ? item.arguments : '',
    });
    emit('response.output_item.done', { output_index: outputIndex, item });
  }

  /** `runstream.output_item.updated` with the item, unless it is the same as last sent. */
  #update(
    block: Block,
    outputIndex: number,
    emit: (type: string, fields?: Record<string, unknown>) => void,
  ): void {
    const item = this.#item(block);
    const json = JSON.stringify(item);
    if (this.#sentItems.get(block.blockId) === json) return;
    this.#sentItems.set(block.blockId, json);
    emit('runstream.output_item.updated', { output_index: outputIndex, item });
  }

  /** The item of a block, remembered as sent. */
  #sent(block: Block) {
    const item = this.#item(block);
    this.#sentItems.set(block.blockId, JSON.stringify(item));
    return item;
  }

  #block(blockId: string): Block | undefined {
    // Nearly always the newest block.
    const blocks = this.#state.blocks;
    for (let index = blocks.length - 1; index >= 0; index -= 1)
      if ((blocks[index] as Block).blockId === blockId) return blocks[index];
    return undefined;
  }

  #item(block: Block) {
    return blockToItem(block, this.#hostToolNames);
  }

  #itemId(block: Block): string {
    let id = this.#itemIds.get(block.blockId);
    if (id === undefined) {
      id = itemIdOf(block, block.kind === 'tool' && this.#hostToolNames.has(block.name));
      this.#itemIds.set(block.blockId, id);
    }
    return id;
  }

  #indexOf(blockId: string): number {
    let index = this.#outputIndex.get(blockId);
    if (index === undefined) {
      index = this.#outputIndex.size;
      this.#outputIndex.set(blockId, index);
    }
    return index;
  }
}

function emptyPart(kind: 'answer' | 'reasoning') {
  return kind === 'answer'
    ? { type: 'output_text', text: '', annotations: [] }
    : { type: 'reasoning_text', text: '' };
}
