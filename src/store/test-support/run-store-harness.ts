import { expect } from 'vitest';
import { createMessageState, type Message, reduceAll, toMessage } from '../../protocol/index.ts';
// The one file, not the folder's index, which also holds the fast-check arbitraries: runstream/testing
// re-exports this harness, and fast-check is no dependency of the package.
import { SEED_CANCEL_ORDER, seedCancelOrderEvents } from '../../protocol/test-support/seed-cancel-order.ts';
import type { Conversation, RunRecord, RunStatus, RunStore, User } from '../run-store.ts';
import { RunStoreError, type RunStoreErrorCode } from '../run-store-error.ts';

/** A clock that moves only when the test says so, so timestamps and ties are deterministic. */
export interface ManualClock {
  now(): number;
  advance(ms: number): void;
}

export function createManualClock(start = 1_750_000_000_000): ManualClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}

export interface RunStoreFixtureContext {
  /** The clock the store under test must use for `createdAt`/`updatedAt`. */
  now: () => number;
}

export interface RunStoreFixture {
  store: RunStore;
  close(): Promise<void>;
  /**
   * Everything the implementation has persisted, as text (for SQLite, the bytes of the database file
   * and its WAL). When given, the suite checks that a token's plaintext is not in it and its hash is.
   */
  persistedText?(): Promise<string>;
}

export type RunStoreFactory = (context: RunStoreFixtureContext) => Promise<RunStoreFixture>;

/** What each test works with: a fresh store, its clock, and shortcuts to the usual setup. */
export interface RunStoreHarness {
  readonly fixture: RunStoreFixture;
  readonly store: RunStore;
  readonly clock: ManualClock;
  /** A new user and a conversation of theirs. */
  conversation(name?: string): Promise<{ user: User; conversation: Conversation }>;
  /** A run in a new conversation (or the one given), with the given status. */
  run(
    status?: RunStatus,
    conversation?: Conversation,
  ): Promise<{ run: RunRecord; conversation: Conversation }>;
}

export async function createHarness(create: RunStoreFactory): Promise<RunStoreHarness> {
  const clock = createManualClock();
  const fixture = await create({ now: clock.now });
  const store = fixture.store;
  let runCount = 0;
  const harness: RunStoreHarness = {
    fixture,
    store,
    clock,
    async conversation(name = 'Ada') {
      const user = await store.createUser(name);
      const conversation = await store.createConversation(user.id, `${name}'s conversation`);
      return { user, conversation };
    },
    async run(status = 'running', given) {
      const conversation = given ?? (await harness.conversation()).conversation;
      runCount += 1;
      const run = await store.createRun({
        id: `run_test${runCount}`,
        conversationId: conversation.id,
        messageId: `msg_test${runCount}`,
        userId: conversation.userId,
        status,
        cancelReason: null,
        lastSeq: 0,
        leaseOwner: null,
        leaseExpiresAt: null,
      });
      return { run, conversation };
    },
  };
  return harness;
}

/** Seed 002 paused on its confirmation card: nine blocks of every kind, Chinese text, nested args. */
export function seedPausedMessage(): Message {
  return toMessage(reduceAll(createMessageState(), seedCancelOrderEvents()));
}

export { SEED_CANCEL_ORDER };

/** Await `promise` and expect it to fail with a `RunStoreError` of `code`; returns the error. */
export async function expectStoreError(
  promise: Promise<unknown>,
  code: RunStoreErrorCode,
): Promise<RunStoreError> {
  const outcome = await promise.then(
    (value: unknown) => ({ settled: 'resolved' as const, value }),
    (error: unknown) => ({ settled: 'rejected' as const, error }),
  );
  if (outcome.settled === 'resolved')
    throw new Error(`expected a RunStoreError ${code}, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(RunStoreError);
  expect((outcome.error as RunStoreError).code).toBe(code);
  return outcome.error as RunStoreError;
}
