import type { RunStatus } from './run-store.ts';
import { RunStoreError } from './run-store-error.ts';

/** Rules both stores enforce the same way, so the conformance suite holds for each. */

/** `running` or `paused`: at most one such run per conversation. */
export function isActive(status: RunStatus): boolean {
  return status === 'running' || status === 'paused';
}

export function notFound(what: string, id: string): RunStoreError {
  return new RunStoreError('not_found', `no ${what} ${id}`);
}

export function activeRunExists(conversationId: string, activeRunId: string): RunStoreError {
  return new RunStoreError(
    'active_run_exists',
    `conversation ${conversationId} already has an active run, ${activeRunId}`,
    { existingId: activeRunId },
  );
}

/** One run, one message: saving over a message of another conversation, run or role is a bug. */
export function assertSameAssistantMessage(
  messageId: string,
  wanted: { conversationId: string; runId: string },
  stored: { conversationId: string; role: 'user' | 'assistant'; runId: string | null },
): void {
  if (stored.role !== 'assistant')
    throw new RunStoreError('conflict', `message ${messageId} is a user message`, { existingId: messageId });
  if (stored.conversationId !== wanted.conversationId)
    throw new RunStoreError('conflict', `message ${messageId} belongs to another conversation`, {
      existingId: messageId,
    });
  if (stored.runId !== wanted.runId)
    throw new RunStoreError('conflict', `message ${messageId} belongs to run ${stored.runId}`, {
      existingId: messageId,
    });
}
