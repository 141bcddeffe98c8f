/** A mistake in how the command was called: exit code 2 and the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly usage: string | undefined;

  constructor(message: string, usage?: string) {
    super(message);
    this.usage = usage;
  }
}
