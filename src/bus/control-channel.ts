/**
 * Signals between instances about a run: "this run was asked to stop". The signal carries no
 * state: the request is recorded in the store first (a compare-and-set), then signalled, so a
 * signal that is lost (Redis down) delays the stop until the owner's next lease renewal, when it
 * reads the store, and never loses it.
 */
export interface ControlSignal {
  runId: string;
  kind: 'stop';
}

export interface ControlChannel {
  /** Tell every instance (this one included); resolves once sent, not once handled. */
  publish(signal: ControlSignal): Promise<void>;
  /** Hear every signal from now on; the returned function stops listening. */
  subscribe(listener: (signal: ControlSignal) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** Whether a decoded message is a signal this version knows; anything else is ignored. */
export function isControlSignal(value: unknown): value is ControlSignal {
  const candidate = value as Partial<ControlSignal> | null;
  return typeof candidate?.runId === 'string' && candidate.kind === 'stop';
}
