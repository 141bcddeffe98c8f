// In its own file, like `UsageError`: the host loop throws it and `hostCommand` tells it apart.
/** An answer the host cannot go on from: the server's message, exit 1. */
export class HostFailure extends Error {
  override readonly name = 'HostFailure';
}
