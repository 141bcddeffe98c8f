import type { Message } from '../protocol/index.ts';
import type {
  Conversation,
  Decision,
  HostToolResult,
  RunRecord,
  RunStatus,
  RunStore,
  StoredMessage,
  ToolCallRecord,
  ToolCallStatus,
  User,
} from './run-store.ts';

/** Rows as SQLite returns them and takes them, and their mapping to and from the store's records. */

export const MESSAGE_COLUMNS =
  'id, conversation_id, role, text, client_message_id, run_id, message, created_at';
export const RUN_COLUMNS =
  'id, conversation_id, message_id, user_id, status, cancel_reason, last_seq, lease_owner, lease_expires_at, created_at, updated_at';
export const TOOL_CALL_COLUMNS =
  'run_id, tool_call_id, name, args, effect, status, decision, result, error, host_result, created_at, updated_at';

export type RunPatch = Parameters<RunStore['updateRun']>[1];

/**
 * One static statement for every patch: a `set_*` flag says whether the patch names the column, so
 * an explicit `null` (clear the lease) is told apart from a key left out.
 */
export const PATCH_RUN = `UPDATE runs SET
    status = CASE WHEN @set_status THEN @status ELSE status END,
    cancel_reason = CASE WHEN @set_cancel_reason THEN @cancel_reason ELSE cancel_reason END,
    last_seq = CASE WHEN @set_last_seq THEN @last_seq ELSE last_seq END,
    lease_owner = CASE WHEN @set_lease_owner THEN @lease_owner ELSE lease_owner END,
    lease_expires_at = CASE WHEN @set_lease_expires_at THEN @lease_expires_at ELSE lease_expires_at END,
    updated_at = @updated_at
  WHERE id = @id`;

export function runPatchParameters(id: string, patch: RunPatch, now: number): Record<string, unknown> {
  return {
    id,
    updated_at: now,
    ...patchParameter('status', patch.status),
    ...patchParameter('cancel_reason', patch.cancelReason),
    ...patchParameter('last_seq', patch.lastSeq),
    ...patchParameter('lease_owner', patch.leaseOwner),
    ...patchParameter('lease_expires_at', patch.leaseExpiresAt),
  };
}

function patchParameter(column: string, value: string | number | null | undefined): Record<string, unknown> {
  return { [column]: value ?? null, [`set_${column}`]: value === undefined ? 0 : 1 };
}

/**
 * A decision is only ever added: a save that carries `decision: null` (the runtime's copy from before
 * the click) must not erase one that `decide` recorded meanwhile. `executed` belongs to
 * `claimExecution` alone and `host_result` to `recordToolResult`, and both are left as they are;
 * `created_at` and the row's place stay.
 */
export const UPSERT_TOOL_CALL = `INSERT INTO tool_calls (run_id, tool_call_id, name, args, effect, status,
    decision, result, error, created_at, updated_at)
  VALUES (@run_id, @tool_call_id, @name, @args, @effect, @status, @decision, @result, @error, @now, @now)
  ON CONFLICT (run_id, tool_call_id) DO UPDATE SET
    name = excluded.name, args = excluded.args, effect = excluded.effect, status = excluded.status,
    decision = COALESCE(tool_calls.decision, excluded.decision), result = excluded.result,
    error = excluded.error, updated_at = excluded.updated_at`;

export function toolCallParameters(
  call: Omit<ToolCallRecord, 'createdAt' | 'updatedAt'>,
  now: number,
): Record<string, unknown> {
  return {
    run_id: call.runId,
    tool_call_id: call.toolCallId,
    name: call.name,
    args: toJson(call.args),
    effect: call.effect,
    status: call.status,
    decision: call.decision === null ? null : JSON.stringify(call.decision),
    result: toJson(call.result),
    error: toJson(call.error),
    now,
  };
}

export interface UserRow {
  id: string;
  name: string;
  created_at: number;
}

export interface ConversationRow {
  id: string;
  user_id: string;
  title: string;
  created_at: number;
  updated_at: number;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant';
  text: string | null;
  client_message_id: string | null;
  run_id: string | null;
  message: string | null;
  created_at: number;
}

export interface RunRow {
  id: string;
  conversation_id: string;
  message_id: string;
  user_id: string;
  status: string;
  cancel_reason: string | null;
  last_seq: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ToolCallRow {
  run_id: string;
  tool_call_id: string;
  name: string;
  args: string | null;
  effect: string;
  status: string;
  decision: string | null;
  result: string | null;
  error: string | null;
  host_result: string | null;
  created_at: number;
  updated_at: number;
}

/** JSON text for a JSON column; `undefined` becomes SQL NULL, while `null` is stored as `'null'`. */
export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

/** The inverse of `toJson`. The store wrote these columns itself, so they are not re-validated. */
export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toStoredMessage(row: MessageRow): StoredMessage {
  if (row.role === 'assistant') {
    return {
      id: row.id,
      conversationId: row.conversation_id,
      role: 'assistant',
      runId: row.run_id ?? '',
      message: fromJson(row.message) as Message,
      createdAt: row.created_at,
    };
  }
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: 'user',
    text: row.text ?? '',
    createdAt: row.created_at,
    ...(row.client_message_id === null ? {} : { clientMessageId: row.client_message_id }),
  };
}

export function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    messageId: row.message_id,
    userId: row.user_id,
    status: row.status as RunStatus,
    cancelReason: row.cancel_reason,
    lastSeq: row.last_seq,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toToolCallRecord(row: ToolCallRow): ToolCallRecord {
  const record: ToolCallRecord = {
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    name: row.name,
    args: fromJson(row.args),
    effect: row.effect as ToolCallRecord['effect'],
    status: row.status as ToolCallStatus,
    decision: (fromJson(row.decision) as Decision | undefined) ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.result !== null) record.result = fromJson(row.result);
  if (row.error !== null) record.error = fromJson(row.error) as { code: string; message: string };
  if (row.host_result !== null) record.hostResult = fromJson(row.host_result) as HostToolResult;
  return record;
}
