import type { ConnectionChange, RunStream, RunstreamClient } from '../../client/index.ts';
import type { MessageState } from '../../protocol/index.ts';
import { type ChatSnapshot, toNotice } from './chat-snapshot.ts';

// Following a run's stream for the chat (one at a time), with the connection state and the
// stop that waits for a run id, kept apart from `ChatController`, which decides what to follow and
// where its states go.

export interface ActiveStream {
  conversationId: string;
  itemKey: string;
  stream: RunStream;
  abort: AbortController;
  /** The stop button was pressed for this run; `cancelSent` once the cancel request went out. */
  stopRequested: boolean;
  /** The stop's reason (`user_stop` unless the page gave another). */
  stopReason?: string;
  cancelSent: boolean;
}

export interface FollowHooks {
  /** The first event arrived (or the stream ended without any). */
  onFirstUpdate?: () => void;
  /** The stream failed before its first event: nothing of it was applied. */
  onRefused?: (error: unknown) => void;
  /** The page disconnected on purpose (a switch or a refresh) before the first event. */
  onAborted?: () => void;
}

/** What `ChatController` lends the stream it follows: its client and its snapshot. */
export interface RunStreamsHost {
  client: RunstreamClient;
  /** The current view including changes not yet flushed to the screen. */
  current(): ChatSnapshot;
  update(change: Partial<ChatSnapshot>): void;
  /** Put an assistant item's new state in place. */
  setState(itemKey: string, state: MessageState): void;
  /** Tell the page a refused token (it signs in again). */
  handleAuth(error: unknown): void;
  /** Bumped on every conversation switch; work started for an older one drops its results. */
  generation(): number;
}

/** The stream the page follows; a newer one, a switch or a refresh lets go of the previous one. */
export class RunStreams {
  readonly #host: RunStreamsHost;
  #active: ActiveStream | null = null;
  #reconnectedTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: RunStreamsHost) {
    this.#host = host;
  }

  get active(): ActiveStream | null {
    return this.#active;
  }

  /** Stop the pending switch from "reconnected" back to "open" (the page goes away). */
  clearReconnectedTimer(): void {
    clearTimeout(this.#reconnectedTimer);
  }

  async follow(active: ActiveStream, hooks: FollowHooks): Promise<void> {
    this.#active?.abort.abort();
    this.#active = active;
    this.#host.update({ streaming: true, connection: { status: 'open' } });
    let first = true;
    try {
      for await (const update of active.stream) {
        if (this.#active !== active) break;
        if (first) {
          first = false;
          hooks.onFirstUpdate?.();
        }
        this.#host.setState(active.itemKey, update.state);
        const runId = active.stream.runId;
        if (active.stopRequested && !active.cancelSent && runId !== undefined) {
          // A stop pressed before the run id was known.
          active.cancelSent = true;
          void this.cancel(runId, this.#host.generation(), active.stopReason);
        }
      }
      if (first) hooks.onFirstUpdate?.();
    } catch (error) {
      if (active.abort.signal.aborted) {
        if (first) hooks.onAborted?.();
        return;
      }
      if (first && hooks.onRefused) {
        // Nothing was streamed: a refusal (409, 413 …) or a server that could not be reached.
        hooks.onRefused(error);
      } else {
        this.#host.handleAuth(error);
        if (first) hooks.onFirstUpdate?.();
        if (this.#active === active)
          this.#host.update({ connection: { status: 'failed', notice: toNotice(error) } });
      }
    } finally {
      if (this.#active === active) {
        this.#active = null;
        // A stop pressed before the run id was known, on a stream that ended before any event.
        const runId = active.stream.runId;
        if (active.stopRequested && !active.cancelSent && runId !== undefined) {
          active.cancelSent = true;
          void this.cancel(runId, this.#host.generation(), active.stopReason);
        }
        clearTimeout(this.#reconnectedTimer);
        const failed = this.#host.current().connection.status === 'failed';
        this.#host.update({
          streaming: false,
          stopping: false,
          sending: false,
          ...(failed ? {} : { connection: { status: 'idle' } as const }),
        });
      }
    }
  }

  async cancel(runId: string, generation: number, reason = 'user_stop'): Promise<void> {
    try {
      await this.#host.client.cancel(runId, reason);
    } catch (error) {
      this.#host.handleAuth(error);
      if (generation === this.#host.generation())
        this.#host.update({ stopping: false, composerNotice: toNotice(error) });
    }
  }

  onConnectionChange(change: ConnectionChange, source: AbortController): void {
    // A stream the page has already let go of (a switch, a newer stream) no longer speaks for it.
    if (this.#active?.abort !== source) return;
    clearTimeout(this.#reconnectedTimer);
    const previous = this.#host.current().connection.status;
    if (change.status === 'reconnecting') {
      this.#host.update({ connection: { status: 'reconnecting', attempt: change.attempt ?? 1 } });
    } else if (change.status === 'open') {
      if (previous === 'reconnecting') {
        this.#host.update({ connection: { status: 'reconnected' } });
        this.#reconnectedTimer = setTimeout(() => {
          if (this.#host.current().connection.status === 'reconnected')
            this.#host.update({ connection: { status: 'open' } });
        }, 2500);
      } else {
        this.#host.update({ connection: { status: 'open' } });
      }
    } else if (change.status === 'closed' && previous !== 'failed') {
      // Also after a reconnect that found the run finished (204): nothing is being resumed any more.
      this.#host.update({ connection: { status: 'idle' } });
    }
  }

  disconnect(): void {
    const active = this.#active;
    this.#active = null;
    active?.abort.abort();
    clearTimeout(this.#reconnectedTimer);
    this.#host.update({ streaming: false, stopping: false, sending: false, connection: { status: 'idle' } });
  }
}
