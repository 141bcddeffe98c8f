import type { RunPatch, ToolCallRecord } from './run-store.ts';
import { qualified, toJson } from './run-store-rows.ts';

/** The SQLite store's statements and their parameters. */

export const MESSAGE_COLUMNS =
  'id, conversation_id, role, text, client_message_id, run_id, message, created_at';
export const RUN_COLUMNS =
  'id, conversation_id, message_id, user_id, status, cancel_reason, last_seq, lease_owner, lease_expires_at, stop_requested, agent_id, agent_revision, created_at, updated_at';
export const TOOL_CALL_COLUMNS =
  'run_id, tool_call_id, name, args, effect, status, decision, result, error, host_result, created_at, updated_at';

/** The same columns named by table, for a query that joins `runs` (which has `status` too). */
export const QUALIFIED_TOOL_CALL_COLUMNS = qualified('tool_calls', TOOL_CALL_COLUMNS);

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
    stop_requested = CASE WHEN @set_stop_requested THEN @stop_requested ELSE stop_requested END,
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
    ...patchParameter('stop_requested', patch.stopRequested),
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
