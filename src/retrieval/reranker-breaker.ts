/**
 * Whether a search may ask the reranker: a circuit breaker. After a failure the searches go without
 * it for `pauseMs` (a server that hangs would otherwise cost every search its timeout and retry,
 * about 10 s, before the fused order); then one search at a time tries it, and the first success
 * lets every search use it again. Searches in flight when it fails do not stretch the pause, and
 * only the failure that starts a pause is reported. Time is `performance.now()`: a wall clock set
 * back would lengthen the pause.
 */
export class RerankerBreaker {
  readonly #pauseMs: number;
  readonly #now: () => number;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #failing = false;
  #trialInFlight = false;

  constructor(pauseMs: number, now: () => number = () => performance.now()) {
    this.#pauseMs = pauseMs;
    this.#now = now;
  }

  /** True when this search may ask the reranker; it must then report `succeeded`, `failed` or `abandoned`. */
  acquire(): boolean {
    if (this.#now() < this.#pausedUntil) return false;
    if (!this.#failing) return true;
    if (this.#trialInFlight) return false;
    this.#trialInFlight = true;
    return true;
  }

  succeeded(): void {
    this.#failing = false;
    this.#trialInFlight = false;
  }

  /** True when this failure starts a pause (worth telling the operator), false during one. */
  failed(): boolean {
    this.#trialInFlight = false;
    this.#failing = true;
    const now = this.#now();
    if (now < this.#pausedUntil) return false;
    this.#pausedUntil = now + this.#pauseMs;
    return true;
  }

  /** The search did not get an answer either way (it was stopped, or had nothing to rerank). */
  abandoned(): void {
    this.#trialInFlight = false;
  }
}
