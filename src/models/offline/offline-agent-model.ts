import { sleep } from '../../shared/index.ts';
import type { ChatModel, ChatRequest, ChatStreamPart } from '../chat-model.ts';
import type { OfflineLanguage } from './offline-language.ts';
import { planOfflineTurn } from './plan-offline-turn.ts';
import { turnParts } from './turn-parts.ts';

export interface OfflineAgentModelOptions {
  /** The agent's language; a message clearly in the other one is answered in that one. Default zh-CN. */
  language?: OfflineLanguage;
  /** Pause before each streamed part, so answers stream at a watchable pace. Default 0. */
  delayMs?: number;
}

/**
 * The model any agent gets when no real one is configured: deterministic, no weights, no network,
 * and no knowledge of any business. It is not a language model; it reads the request the way a
 * model would and plays the next step (`plan-offline-turn.ts`): it searches `search_knowledge` for
 * a question and answers by quoting the clauses found, with their citations (or says it found no
 * reliable basis); it calls the tool a message asks for, with arguments fitted to the tool's JSON
 * Schema, loading the skill that unlocks it first, and asks for a required value the message does
 * not give; it answers from what a tool returned, says so when an action was rejected or failed, and
 * greets. Everything it says is streamed in small deltas, reasoning first.
 */
export class OfflineAgentModel implements ChatModel {
  readonly name = 'offline';
  readonly #language: OfflineLanguage;
  readonly #delayMs: number;

  constructor(options: OfflineAgentModelOptions = {}) {
    this.#language = options.language ?? 'zh-CN';
    this.#delayMs = options.delayMs ?? 0;
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart, void, undefined> {
    const signal = request.signal;
    signal?.throwIfAborted();
    const parts = turnParts(planOfflineTurn(request, this.#language), newToolCallId);
    for (const part of parts) {
      if (this.#delayMs > 0) await sleep(this.#delayMs, signal);
      signal?.throwIfAborted();
      yield part;
    }
  }
}

/** `call_` and 24 hex digits: unique across runs, as a provider's ids are. */
function newToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}
