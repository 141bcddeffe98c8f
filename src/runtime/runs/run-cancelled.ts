/** The abort reason of an explicit stop: `POST /v1/runs/{id}/cancel {reason}`. */
export class RunCancelled extends Error {
  override readonly name = 'RunCancelled';
  readonly reason: string;

  constructor(reason = 'user_stop') {
    super(`the run was cancelled: ${reason}`);
    this.reason = reason;
  }
}
