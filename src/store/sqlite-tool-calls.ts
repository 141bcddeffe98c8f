import type { Database, Statement } from 'better-sqlite3';
import type { Decision, HostToolResult, ToolCallRecord } from './run-store.ts';
import { fromJson, type ToolCallRow, toToolCallRecord } from './run-store-rows.ts';
import { hostToolResult, notFound, notHostCall } from './run-store-rules.ts';
import {
  QUALIFIED_TOOL_CALL_COLUMNS,
  TOOL_CALL_COLUMNS,
  toolCallParameters,
  UPSERT_TOOL_CALL,
} from './sqlite-run-store-rows.ts';

/**
 * The tool calls in the SQLite file (their decisions, execution claims and host results), for
 * `SqliteRunStore`, which delegates to it and shares its prepared statements and IMMEDIATE
 * transactions: kept apart so the store file stays about users, conversations and runs (the
 * PostgreSQL twin: `PostgresToolCalls`).
 */
export class SqliteToolCalls {
  readonly #database: Database;
  readonly #sql: (source: string) => Statement;
  readonly #immediate: <T>(work: () => T) => T;
  readonly #now: () => number;

  constructor(
    database: Database,
    sql: (source: string) => Statement,
    immediate: <T>(work: () => T) => T,
    now: () => number,
  ) {
    this.#database = database;
    this.#sql = sql;
    this.#immediate = immediate;
    this.#now = now;
  }

  async findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]> {
    if (toolCallIds.length === 0) return [];
    const ids = [...new Set(toolCallIds)];
    // Prepared here rather than cached by `#sql`: the number of placeholders changes with every call.
    const rows = this.#database
      .prepare(
        `SELECT ${QUALIFIED_TOOL_CALL_COLUMNS} FROM tool_calls JOIN runs ON runs.id = tool_calls.run_id
         WHERE tool_calls.tool_call_id IN (${ids.map(() => '?').join(', ')})
           AND runs.user_id = ? AND runs.status = 'paused'
           AND tool_calls.effect = 'host' AND tool_calls.status = 'pending' AND tool_calls.host_result IS NULL
         ORDER BY tool_calls.ordinal`,
      )
      .all(...ids, userId) as ToolCallRow[];
    return rows.map(toToolCallRecord);
  }

  async saveToolCall(call: Omit<ToolCallRecord, 'createdAt' | 'updatedAt'>): Promise<void> {
    const now = this.#now();
    this.#immediate(() => {
      if (this.#sql('SELECT 1 FROM runs WHERE id = ?').get(call.runId) === undefined)
        throw notFound('run', call.runId);
      this.#sql(UPSERT_TOOL_CALL).run(toolCallParameters(call, now));
    });
  }

  async getToolCall(runId: string, toolCallId: string): Promise<ToolCallRecord | undefined> {
    const row = this.#sql(
      `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE run_id = ? AND tool_call_id = ?`,
    ).get(runId, toolCallId) as ToolCallRow | undefined;
    return row === undefined ? undefined : toToolCallRecord(row);
  }

  async listToolCalls(runId: string): Promise<ToolCallRecord[]> {
    const rows = this.#sql(
      `SELECT ${TOOL_CALL_COLUMNS} FROM tool_calls WHERE run_id = ? ORDER BY ordinal`,
    ).all(runId) as ToolCallRow[];
    return rows.map(toToolCallRecord);
  }

  async decide(
    runId: string,
    toolCallId: string,
    decision: Decision,
  ): Promise<{ applied: boolean; decision: Decision }> {
    const json = JSON.stringify(decision);
    return this.#immediate(() => {
      // The conditional UPDATE is the single-use guard: whoever changes the row first wins, in this
      // process or any other that shares the file.
      const result = this.#sql(
        `UPDATE tool_calls SET decision = ?, updated_at = ?
         WHERE run_id = ? AND tool_call_id = ? AND decision IS NULL`,
      ).run(json, this.#now(), runId, toolCallId);
      if (result.changes === 1) return { applied: true, decision: JSON.parse(json) as Decision };
      const row = this.#sql('SELECT decision FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(
        runId,
        toolCallId,
      ) as Pick<ToolCallRow, 'decision'> | undefined;
      if (row === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
      return { applied: false, decision: fromJson(row.decision) as Decision };
    });
  }

  async claimExecution(runId: string, toolCallId: string): Promise<boolean> {
    return this.#immediate(() => {
      const result = this.#sql(
        `UPDATE tool_calls SET executed = 1, updated_at = ?
         WHERE run_id = ? AND tool_call_id = ? AND executed = 0`,
      ).run(this.#now(), runId, toolCallId);
      if (result.changes === 1) return true;
      if (this.#sql('SELECT 1 FROM tool_calls WHERE run_id = ? AND tool_call_id = ?').get(runId, toolCallId))
        return false;
      throw notFound('tool call', `${runId}/${toolCallId}`);
    });
  }

  async recordToolResult(
    runId: string,
    toolCallId: string,
    result: HostToolResult,
  ): Promise<{ applied: boolean; existing: HostToolResult }> {
    const json = JSON.stringify(hostToolResult(result));
    return this.#immediate(() => {
      // As for decisions, the conditional UPDATE is the single-use guard across processes.
      const applied = this.#sql(
        `UPDATE tool_calls SET host_result = ?, updated_at = ?
         WHERE run_id = ? AND tool_call_id = ? AND effect = 'host' AND host_result IS NULL`,
      ).run(json, this.#now(), runId, toolCallId);
      if (applied.changes === 1) return { applied: true, existing: JSON.parse(json) as HostToolResult };
      const row = this.#sql(
        'SELECT effect, host_result FROM tool_calls WHERE run_id = ? AND tool_call_id = ?',
      ).get(runId, toolCallId) as Pick<ToolCallRow, 'effect' | 'host_result'> | undefined;
      if (row === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
      if (row.effect !== 'host' || row.host_result === null) throw notHostCall(runId, toolCallId, row.effect);
      return { applied: false, existing: fromJson(row.host_result) as HostToolResult };
    });
  }
}
