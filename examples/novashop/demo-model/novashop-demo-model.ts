import type { ChatModel, ChatRequest, ChatStreamPart } from 'runstream';
import { planTurn } from './plan-turn.ts';
import { planToParts } from './stream-parts.ts';
import { readTranscript } from './transcript.ts';

export interface NovaShopDemoModelOptions {
  /** Pause before each part, so the demo streams at a watchable pace. Default 0. */
  delayMs?: number;
  /** Tool call ids. Default: `call_` and 24 random hex digits, unique across runs. */
  newToolCallId?: () => string;
}

/**
 * The offline default model: deterministic, no weights, no network. It is a demo of the NovaShop
 * domain, not a language model: it reads the shopper's last message with keyword rules
 * (`demo-model/intent.ts`), looks at the tool calls it already made in this run and what came back,
 * and at which tools it may call now (`cancel_order` only once `order-change` is loaded), and
 * plays the next step of one of a few scenarios: cancel an order (seed 002), order status, return,
 * shipping and size questions answered from `search_knowledge` (the answering clause first, a fact
 * once, each passage cited once, low evidence said plainly), and a polite refusal otherwise. It
 * answers in the shopper's language, Chinese or English (`demo-model/language.ts`). Answers quote
 * tool results only. Everything it says is streamed in small deltas.
 *
 * Host tools (any tool in the request that is not NovaShop's own, declared by a host that runs it)
 * come first: when the message names one or plainly asks for what it does
 * (`demo-model/host-intent.ts`), it calls it, several in one turn if several match, with arguments
 * that fit its JSON Schema (`demo-model/fit-arguments.ts`), and once the host's output is back it
 * answers from that output (`demo-model/host-tool-flow.ts`). So the responses API's whole loop runs
 * offline, without any key.
 */
export class NovaShopDemoModel implements ChatModel {
  readonly name = 'novashop-demo';
  readonly #delayMs: number;
  readonly #newToolCallId: () => string;

  constructor(options: NovaShopDemoModelOptions = {}) {
    this.#delayMs = options.delayMs ?? 0;
    this.#newToolCallId = options.newToolCallId ?? randomToolCallId;
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const signal = request.signal;
    signal?.throwIfAborted();
    const parts = planToParts(planTurn(readTranscript(request)), this.#newToolCallId);
    for (const part of parts) {
      if (this.#delayMs > 0) await pause(this.#delayMs, signal);
      signal?.throwIfAborted();
      yield part;
    }
  }
}

function randomToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

function pause(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
