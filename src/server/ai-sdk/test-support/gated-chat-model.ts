import type { ChatModel, ChatRequest, ChatStreamPart, ScriptedChatModel } from '../../../models/index.ts';

/**
 * A `ScriptedChatModel` whose first turn stops before part `gateAt` until `open()` is called (or the
 * run is stopped): a run that is certainly still going while a test reconnects to it or stops it,
 * with no timing involved.
 */
export class GatedChatModel implements ChatModel {
  readonly name = 'gated-scripted';
  readonly #inner: ScriptedChatModel;
  readonly #gateAt: number;
  #turn = 0;
  #open: () => void = () => {};
  readonly #gate = new Promise<void>((resolve) => {
    this.#open = resolve;
  });
  /** Resolves when the first turn has reached the gate. */
  readonly reached: Promise<void>;
  #reach: () => void = () => {};

  constructor(inner: ScriptedChatModel, gateAt: number) {
    this.#inner = inner;
    this.#gateAt = gateAt;
    this.reached = new Promise<void>((resolve) => {
      this.#reach = resolve;
    });
  }

  open(): void {
    this.#open();
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const gated = this.#turn === 0;
    this.#turn += 1;
    let index = 0;
    for await (const part of this.#inner.stream(request)) {
      if (gated && index === this.#gateAt) {
        this.#reach();
        await untilOpenOrAborted(this.#gate, request.signal);
        request.signal?.throwIfAborted();
      }
      index += 1;
      yield part;
    }
  }
}

function untilOpenOrAborted(gate: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return gate;
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
    void gate.then(resolve);
  });
}
