import { RetrievalError, type RetrievalErrorCode } from './retrieval-error.ts';

/**
 * The retrieval settings of one part (the embedder, the reranker) read from the environment, each
 * variable trimmed and a blank one taken as unset: a `.env` line `RUNSTREAM_RERANK_URL=` turns
 * nothing on. A bad value is a `RetrievalError` of the part's `code` that names the variable.
 */
export class EnvironmentSettings {
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #code: RetrievalErrorCode;

  constructor(env: Readonly<Record<string, string | undefined>>, code: RetrievalErrorCode) {
    this.#env = env;
    this.#code = code;
  }

  text(name: string): string | undefined {
    const value = this.#env[name]?.trim();
    return value === '' ? undefined : value;
  }

  positiveInteger(name: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) <= 0)
      this.fail(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
    return Number(value);
  }

  number(name: string): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    if (!Number.isFinite(Number(value))) this.fail(`${name} must be a number, got ${JSON.stringify(value)}`);
    return Number(value);
  }

  /**
   * Refuses settings that mean something only beside `required` when it is unset, since a half-done
   * configuration that silently turns nothing on is worse than an error at start.
   */
  requireFor(required: string, dependents: readonly string[]): void {
    if (this.text(required) !== undefined) return;
    const orphan = dependents.find((name) => this.text(name) !== undefined);
    if (orphan !== undefined) this.fail(`${orphan} is set but ${required} is not`);
  }

  fail(message: string): never {
    throw new RetrievalError(this.#code, message);
  }
}
