/**
 * The abort reason when a run must stop for a reason of the server, not of the shopper: a
 * shutdown, a lease another instance took over, a shared log that cannot be reached. The run ends
 * `interrupted` with `reason`; `explanation`, when given, becomes an error block the shopper sees.
 */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
  readonly reason: string;
  readonly explanation: string | undefined;

  constructor(reason: string, explanation?: string) {
    super(`the run was interrupted: ${reason}`);
    this.reason = reason;
    this.explanation = explanation;
  }
}
