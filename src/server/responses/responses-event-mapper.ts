import {
  type Block,
  createMessageState,
  type LoggedRunEvent,
  type MessageState,
  reduce,
} from '../../protocol/index.ts';
import {
  blockToItem,
  buildResponseObject,
  itemIdOf,
  type ResponseContext,
  type ResponseObject,
  type ResponseUsage,
  usageOf,
} from './response-object.ts';

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
  #usage: ResponseUsage | null = null;
  #created = false;
  readonly #outputIndex = new Map<string, number>();
  /** Host calls whose `function_call_arguments.done` and `output_item.done` were sent. */
  readonly #callsDone = new Set<string>();

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
    return buildResponseObject(this.#context, this.#state, this.#usage);
  }

  push(event: LoggedRunEvent): ResponsesStreamEvent[] {
    const previous = this.#state;
    this.#state = reduce(previous, event);
    const out: ResponsesStreamEvent[] = [];
    const emit = (type: string, fields: Record<string, unknown> = {}) => {
      out.push({ type, sequence_number: this.#sequence, ...fields });
      this.#sequence += 1;
    };
    switch (event.type) {
      case 'run.started':
        this.#emitCreated(emit);
        break;
      case 'run.snapshot':
        // The log no longer holds the run's start (a restart, a very long run): the items come whole.
        this.#emitCreated(emit);
        for (const block of this.#state.blocks) {
          const outputIndex = this.#indexOf(block.blockId);
          emit('response.output_item.added', { output_index: outputIndex, item: this.#item(block) });
          if (block.endedAt !== null) {
            this.#callsDone.add(block.blockId);
            emit('response.output_item.done', { output_index: outputIndex, item: this.#item(block) });
          }
        }
        break;
      case 'block.started': {
        const block = this.#block(event.blockId);
        if (block === undefined) break;
        this.#emitCreated(emit);
        const outputIndex = this.#indexOf(block.blockId);
        emit('response.output_item.added', { output_index: outputIndex, item: this.#item(block) });
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
        const block = this.#block(event.blockId);
        if (block === undefined) break;
        const common = { item_id: this.#itemId(block), output_index: this.#indexOf(block.blockId) };
        if (block.kind === 'answer')
          emit('response.output_text.delta', {
            ...common,
            content_index: 0,
            delta: event.text,
            logprobs: [],
          });
        else if (block.kind === 'reasoning')
          emit('response.reasoning_text.delta', { ...common, content_index: 0, delta: event.text });
        else if (block.kind === 'tool')
          emit(
            this.#hostToolNames.has(block.name)
              ? 'response.function_call_arguments.delta'
              : 'runstream.tool_call.arguments.delta',
            { ...common, delta: event.text },
          );
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
          // A host call is complete for the host once its arguments are validated (or it failed).
          if (block.args !== undefined || block.status !== 'pending') this.#finishCall(block, emit);
        } else if (block.kind === 'tool' || block.kind === 'confirm') {
          emit('runstream.output_item.updated', { output_index: outputIndex, item: this.#item(block) });
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
          // The host's result arrived: an extension event, the function_call item itself is long done.
          else emit('runstream.output_item.updated', { output_index: outputIndex, item: this.#item(block) });
        } else {
          emit('response.output_item.done', { output_index: outputIndex, item: this.#item(block) });
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
      case 'run.finished':
        this.#usage = usageOf(event.usage);
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
    const item = this.#item(block);
    const outputIndex = this.#indexOf(block.blockId);
    emit('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: outputIndex,
      name: block.name,
      arguments: 'arguments' in item ? item.arguments : '',
    });
    emit('response.output_item.done', { output_index: outputIndex, item });
  }

  #block(blockId: string): Block | undefined {
    return this.#state.blocks.find((block) => block.blockId === blockId);
  }

  #item(block: Block) {
    return blockToItem(block, this.#hostToolNames);
  }

  #itemId(block: Block): string {
    return itemIdOf(block, block.kind === 'tool' && this.#hostToolNames.has(block.name));
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
