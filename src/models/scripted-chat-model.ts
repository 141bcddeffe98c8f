import { sleep } from '../shared/index.ts';
import type { ChatMessage, ChatModel, ChatRequest, ChatStreamPart, FinishReason } from './chat-model.ts';
import { ModelError } from './chat-model.ts';

/** One scripted turn with its failure and pacing; a plain part array is a turn without either. */
export interface ScriptedTurn {
  parts: readonly ChatStreamPart[];
  /**
   * Deliver this many parts, then throw `error`: 0 fails before the first part (like a 401), more
   * simulates a stream that breaks mid-way.
   */
  failAt?: number;
  /** What `failAt` throws. Default: `ModelError('model_stream_broken', …)`. */
  error?: Error;
  /** Pause before each part of this turn, overriding the model's `delayMs`. */
  delayMs?: number;
}

/** A turn: its parts, a `ScriptedTurn`, or a function of the request (to echo what a tool returned). */
export type ScriptedTurnInput =
  | readonly ChatStreamPart[]
  | ScriptedTurn
  | ((request: ChatRequest) => readonly ChatStreamPart[] | ScriptedTurn);

export interface ScriptedChatModelOptions {
  /** Default `scripted`. */
  name?: string;
  /** Pause before each part, to give aborts and slow consumers something to race. Default 0. */
  delayMs?: number;
}

interface PreparedTurn {
  parts: readonly ChatStreamPart[];
  failAt: number | undefined;
  error: Error | undefined;
  delayMs: number;
}

/**
 * A `ChatModel` that replays scripted turns, one per `stream()` call, and records every request it
 * got. For runtime tests and users' own tests: no network, no randomness. A turn given as a function
 * is built from the request when its turn comes, for answers that quote a tool's result.
 *
 * A turn without a `finish` part gets one (`tool_calls` when it ended a tool call, else `stop`). The
 * abort signal is honoured before every part. Asking for more turns than were scripted fails with a
 * message naming the turn and the request's last message, which usually shows the loop went a round
 * further than the test expected.
 */
export class ScriptedChatModel implements ChatModel {
  readonly name: string;
  readonly #turns: readonly ScriptedTurnInput[];
  readonly #delayMs: number;
  readonly #requests: ChatRequest[] = [];
  /** Fixed turns, prepared once however often the script repeats them. */
  readonly #prepared = new WeakMap<object, PreparedTurn>();

  constructor(turns: readonly ScriptedTurnInput[], options: ScriptedChatModelOptions = {}) {
    this.name = options.name ?? 'scripted';
    this.#delayMs = options.delayMs ?? 0;
    this.#turns = [...turns];
    // Fixed turns are checked now, so a broken script fails where it is written.
    turns.forEach((turn, position) => {
      if (typeof turn !== 'function' && !this.#prepared.has(turn))
        this.#prepared.set(turn, prepare(turn, position, this.#delayMs));
    });
  }

  /** Every request received, in order; copies, so later changes by the caller do not show here. */
  get requests(): readonly ChatRequest[] {
    return this.#requests;
  }

  /** Turns not yet streamed. */
  get remainingTurns(): number {
    return Math.max(0, this.#turns.length - this.#requests.length);
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const signal = request.signal;
    this.#requests.push(snapshot(request));
    const turnNumber = this.#requests.length;
    const input = this.#turns[turnNumber - 1];
    if (input === undefined) {
      throw new ModelError(
        'model_failed',
        `ScriptedChatModel "${this.name}": stream() was called for turn ${turnNumber}, but only ` +
          `${this.#turns.length} turn${this.#turns.length === 1 ? ' was' : 's were'} scripted ` +
          `(last message of this request: ${describe(request.messages.at(-1))})`,
      );
    }
    const turn =
      typeof input === 'function'
        ? prepare(input(request), turnNumber - 1, this.#delayMs)
        : (this.#prepared.get(input) as PreparedTurn);
    const parts = turn.parts;
    for (let position = 0; position < parts.length; position += 1) {
      const part = parts[position] as ChatStreamPart;
      if (turn.delayMs > 0) await sleep(turn.delayMs, signal);
      signal?.throwIfAborted();
      if (position === turn.failAt) {
        throw (
          turn.error ??
          new ModelError(
            'model_stream_broken',
            `scripted failure of turn ${turnNumber} after ${position} parts`,
          )
        );
      }
      // Frozen copies of the script's parts: a consumer cannot change the script through them.
      yield part;
    }
  }
}

function prepare(
  turn: readonly ChatStreamPart[] | ScriptedTurn,
  position: number,
  defaultDelayMs: number,
): PreparedTurn {
  const scripted: ScriptedTurn = isPartList(turn) ? { parts: turn } : turn;
  const parts = scripted.parts.map((part) => Object.freeze({ ...part }) as ChatStreamPart);
  const finishAt = parts.findIndex((part) => part.type === 'finish');
  if (finishAt !== -1 && finishAt !== parts.length - 1) {
    throw new RangeError(`scripted turn ${position + 1} has parts after its finish part`);
  }
  if (finishAt === -1) parts.push(Object.freeze({ type: 'finish', reason: inferredReason(parts) }));
  const failAt = scripted.failAt;
  if (failAt !== undefined && (!Number.isInteger(failAt) || failAt < 0 || failAt >= parts.length)) {
    throw new RangeError(
      `scripted turn ${position + 1}: failAt must be an integer from 0 to ${parts.length - 1}, got ${failAt}`,
    );
  }
  return { parts, failAt, error: scripted.error, delayMs: scripted.delayMs ?? defaultDelayMs };
}

function isPartList(turn: readonly ChatStreamPart[] | ScriptedTurn): turn is readonly ChatStreamPart[] {
  return Array.isArray(turn);
}

function inferredReason(parts: readonly ChatStreamPart[]): FinishReason {
  return parts.some((part) => part.type === 'tool-call-end') ? 'tool_calls' : 'stop';
}

function snapshot(request: ChatRequest): ChatRequest {
  return {
    ...request,
    messages: request.messages.map(
      (message): ChatMessage =>
        message.role === 'assistant' && message.toolCalls !== undefined
          ? { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call })) }
          : { ...message },
    ),
    ...(request.tools === undefined ? {} : { tools: [...request.tools] }),
  };
}

function describe(message: ChatMessage | undefined): string {
  if (message === undefined) return 'none';
  const content = message.content.length > 80 ? `${message.content.slice(0, 80)}…` : message.content;
  return `${message.role} ${JSON.stringify(content)}`;
}
