import { createId } from './ids.ts';
import type {
  HostToolResult,
  NewRun,
  RunCondition,
  RunRecord,
  RunStatus,
  StoredMessage,
} from './run-store.ts';
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

/** Only host calls take a host result. */
export function notHostCall(runId: string, toolCallId: string, effect: string): RunStoreError {
  return new RunStoreError(
    'invalid_argument',
    `tool call ${runId}/${toolCallId} is a ${effect} call, not a host call: it takes no host result`,
  );
}

/**
 * A host result as stored: exactly one of `output` and `error`, each a string, nothing else, so two
 * equal submissions are stored equal whatever else the caller's object carried.
 */
export function hostToolResult(result: HostToolResult): HostToolResult {
  const hasOutput = 'output' in result && typeof result.output === 'string';
  const hasError = 'error' in result && typeof result.error === 'string';
  if (hasOutput === hasError)
    throw new RunStoreError(
      'invalid_argument',
      'a host result has exactly one of output and error, a string',
    );
  return 'output' in result ? { output: result.output } : { error: result.error };
}

/** Whether `run` meets `condition` (the stores that check in code: memory, SQLite). */
export function meetsCondition(run: RunRecord, condition: RunCondition): boolean {
  if (condition.status !== undefined && !condition.status.includes(run.status)) return false;
  if (condition.leaseOwner !== undefined && run.leaseOwner !== condition.leaseOwner) return false;
  if (
    condition.leaseExpiredBefore !== undefined &&
    run.leaseExpiresAt !== null &&
    run.leaseExpiresAt >= condition.leaseExpiredBefore
  )
    return false;
  if (condition.noStopRequested === true && run.stopRequested !== null) return false;
  return true;
}

/** A shopper's message as every store records it: a new id, the time, the client's id if it sent one. */
export function newUserMessage(
  conversationId: string,
  text: string,
  createdAt: number,
  clientMessageId: string | undefined,
): StoredMessage {
  return {
    id: createId('msg'),
    conversationId,
    role: 'user',
    text,
    createdAt,
    ...(clientMessageId === undefined ? {} : { clientMessageId }),
  };
}

/**
 * The record `createRun` stores: the run's own fields only (a caller may pass a whole record it
 * spread from another), no stop requested yet, the agent fields `null` when left out, and both
 * timestamps the store's clock.
 */
export function newRunRecord(run: NewRun, now: number): RunRecord {
  return {
    id: run.id,
    conversationId: run.conversationId,
    messageId: run.messageId,
    userId: run.userId,
    status: run.status,
    cancelReason: run.cancelReason,
    lastSeq: run.lastSeq,
    leaseOwner: run.leaseOwner,
    leaseExpiresAt: run.leaseExpiresAt,
    stopRequested: null,
    agentId: run.agentId ?? null,
    agentRevision: run.agentRevision ?? null,
    createdAt: now,
    updatedAt: now,
  };
}
