import type pg from 'pg';
import type { Decision, HostToolResult, ToolCallRecord } from '../run-store.ts';
import { fromJson, qualified, type ToolCallRow, toJson, toToolCallRecord } from '../run-store-rows.ts';
import { hostToolResult, notFound, notHostCall } from '../run-store-rules.ts';
import { FOREIGN_KEY_VIOLATION, isPostgresError } from './postgres-pool.ts';

const TOOL_CALL_COLUMNS =
  'run_id, tool_call_id, name, args, effect, status, decision, result, error, host_result, created_at, updated_at';

/**
 * The tool calls in PostgreSQL (their decisions, execution claims and host results), for
 * `PostgresRunStore`, which delegates to it: kept apart so the store file stays about users,
 * conversations and runs. Its single-use guards are conditional UPDATEs, like the store's.
 */
export class PostgresToolCalls {
  readonly #pool: pg.Pool;
  readonly #now: () => number;

  constructor(pool: pg.Pool, now: () => number) {
    this.#pool = pool;
    this.#now = now;
  }

  async findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]> {
    if (toolCallIds.length === 0) return [];
    const { rows } = await this.#pool.query<ToolCallRow>(
      `SELECT ${qualified('tool_calls', TOOL_CALL_COLUMNS)} FROM tool_calls JOIN runs ON runs.id = tool_calls.run_id
       WHERE tool_calls.tool_call_id = ANY($1::text[])
         AND runs.user_id = $2 AND runs.status = 'paused'
         AND tool_calls.effect = 'host' AND tool_calls.status = 'pending' AND tool_calls.host_result IS NULL
       ORDER BY tool_calls.ordinal`,
      [[...new Set(toolCallIds)], userId],
    );
    return rows.map(toToolCallRecord);
  }

  async saveToolCall(call: Omit<ToolCallRecord, 'createdAt' | 'updatedAt'>): Promise<void> {
    const now = this.#now();
    try {
      // As in SQLite: a decision is only ever added, and `executed` and `host_result` belong to
      // `claimExecution` and `recordToolResult` alone, so a stale copy never erases them.
      await this.#pool.query(
        `INSERT INTO tool_calls (run_id, tool_call_id, name, args, effect, status, decision, result, error,
           created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
         ON CONFLICT (run_id, tool_call_id) DO UPDATE SET
           name = excluded.name, args = excluded.args, effect = excluded.effect, status = excluded.status,
           decision = COALESCE(tool_calls.decision, excluded.decision), result = excluded.result,
           error = excluded.error, updated_at = excluded.updated_at`,
        [
          call.runId,
          call.toolCallId,
          call.name,
          toJson(call.args),
          call.effect,
          call.status,
          call.decision === null ? null : JSON.stringify(call.decision),
          toJson(call.result),
          toJson(call.error),
          now,
        ],
      );
    } catch (error) {
      if (isPostgresError(error, FOREIGN_KEY_VIOLATION)) throw notFound('run', call.runId);
      throw error;
    }
  }

  async getToolCall(runId: string, toolCallId: string): Promise<ToolCallRecord | undefined> {
    const row = await this.#one<ToolCallRow>(
      `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE run_id = $1 AND tool_call_id = $2`,
      [runId, toolCallId],
    );
    return row === undefined ? undefined : toToolCallRecord(row);
  }

  async listToolCalls(runId: string): Promise<ToolCallRecord[]> {
    const { rows } = await this.#pool.query<ToolCallRow>(
      `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE run_id = $1 ORDER BY ordinal`,
      [runId],
    );
    return rows.map(toToolCallRecord);
  }

  async decide(
    runId: string,
    toolCallId: string,
    decision: Decision,
  ): Promise<{ applied: boolean; decision: Decision }> {
    const json = JSON.stringify(decision);
    // The conditional UPDATE is the single-use guard: whichever instance changes the row first wins.
    const applied = await this.#pool.query(
      `UPDATE tool_calls SET decision = $1, updated_at = $2
       WHERE run_id = $3 AND tool_call_id = $4 AND decision IS NULL`,
      [json, this.#now(), runId, toolCallId],
    );
    if (applied.rowCount === 1) return { applied: true, decision: JSON.parse(json) as Decision };
    const row = await this.#one<Pick<ToolCallRow, 'decision'>>(
      'SELECT decision FROM tool_calls WHERE run_id = $1 AND tool_call_id = $2',
      [runId, toolCallId],
    );
    if (row === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
    return { applied: false, decision: fromJson(row.decision) as Decision };
  }

  async claimExecution(runId: string, toolCallId: string): Promise<boolean> {
    const claimed = await this.#pool.query(
      `UPDATE tool_calls SET executed = TRUE, updated_at = $1
       WHERE run_id = $2 AND tool_call_id = $3 AND NOT executed`,
      [this.#now(), runId, toolCallId],
    );
    if (claimed.rowCount === 1) return true;
    if (
      await this.#one('SELECT 1 FROM tool_calls WHERE run_id = $1 AND tool_call_id = $2', [runId, toolCallId])
    )
      return false;
    throw notFound('tool call', `${runId}/${toolCallId}`);
  }

  async recordToolResult(
    runId: string,
    toolCallId: string,
    result: HostToolResult,
  ): Promise<{ applied: boolean; existing: HostToolResult }> {
    const json = JSON.stringify(hostToolResult(result));
    const applied = await this.#pool.query(
      `UPDATE tool_calls SET host_result = $1, updated_at = $2
       WHERE run_id = $3 AND tool_call_id = $4 AND effect = 'host' AND host_result IS NULL`,
      [json, this.#now(), runId, toolCallId],
    );
    if (applied.rowCount === 1) return { applied: true, existing: JSON.parse(json) as HostToolResult };
    const row = await this.#one<Pick<ToolCallRow, 'effect' | 'host_result'>>(
      'SELECT effect, host_result FROM tool_calls WHERE run_id = $1 AND tool_call_id = $2',
      [runId, toolCallId],
    );
    if (row === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
    if (row.effect !== 'host' || row.host_result === null) throw notHostCall(runId, toolCallId, row.effect);
    return { applied: false, existing: fromJson(row.host_result) as HostToolResult };
  }

  async #one<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<Row | undefined> {
    return (await this.#pool.query<Row>(text, values)).rows[0];
  }
}
