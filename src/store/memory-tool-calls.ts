import { jsonCopy } from './json-copy.ts';
import type { Decision, HostToolResult, RunRecord, ToolCallRecord } from './run-store.ts';
import { hostToolResult, notFound, notHostCall } from './run-store-rules.ts';

interface ToolCallEntry {
  record: ToolCallRecord;
  executed: boolean;
}

/**
 * The tool calls of `MemoryRunStore` (their decisions, execution claims and host results), which the
 * store delegates to: kept apart so the store file stays about users, conversations and runs. It reads
 * the store's runs (the live map, not a copy) for its run checks and, like the store, does every check
 * and write before its first `await`, so each call stays atomic on one event loop.
 */
export class MemoryToolCalls {
  readonly #runs: ReadonlyMap<string, RunRecord>;
  readonly #now: () => number;
  readonly #toolCalls = new Map<string, ToolCallEntry>();

  constructor(runs: ReadonlyMap<string, RunRecord>, now: () => number) {
    this.#runs = runs;
    this.#now = now;
  }

  async findOpenHostCalls(userId: string, toolCallIds: readonly string[]): Promise<ToolCallRecord[]> {
    const wanted = new Set(toolCallIds);
    return [...this.#toolCalls.values()]
      .map((entry) => entry.record)
      .filter((call) => {
        const run = this.#runs.get(call.runId);
        return (
          wanted.has(call.toolCallId) &&
          run?.userId === userId &&
          run.status === 'paused' &&
          call.effect === 'host' &&
          call.status === 'pending' &&
          call.hostResult === undefined
        );
      })
      .map(jsonCopyRecord);
  }

  async saveToolCall(call: Omit<ToolCallRecord, 'createdAt' | 'updatedAt'>): Promise<void> {
    if (!this.#runs.has(call.runId)) throw notFound('run', call.runId);
    const key = toolCallKey(call.runId, call.toolCallId);
    const existing = this.#toolCalls.get(key);
    const now = this.#now();
    const record: ToolCallRecord = {
      runId: call.runId,
      toolCallId: call.toolCallId,
      name: call.name,
      args: jsonCopy(call.args),
      effect: call.effect,
      status: call.status,
      // As in SQLite: a save never erases a recorded decision, and never touches `executed`.
      decision: existing?.record.decision ?? jsonCopy(call.decision),
      createdAt: existing?.record.createdAt ?? now,
      updatedAt: now,
    };
    if (call.result !== undefined) record.result = jsonCopy(call.result);
    if (call.error !== undefined) record.error = jsonCopy(call.error);
    // Nor a host's submitted result: that belongs to `recordToolResult` alone.
    if (existing?.record.hostResult !== undefined) record.hostResult = existing.record.hostResult;
    this.#toolCalls.set(key, { record, executed: existing?.executed ?? false });
  }

  async getToolCall(runId: string, toolCallId: string): Promise<ToolCallRecord | undefined> {
    const entry = this.#toolCalls.get(toolCallKey(runId, toolCallId));
    return entry === undefined ? undefined : jsonCopyRecord(entry.record);
  }

  async listToolCalls(runId: string): Promise<ToolCallRecord[]> {
    return [...this.#toolCalls.values()]
      .filter((entry) => entry.record.runId === runId)
      .map((entry) => jsonCopyRecord(entry.record));
  }

  async decide(
    runId: string,
    toolCallId: string,
    decision: Decision,
  ): Promise<{ applied: boolean; decision: Decision }> {
    const entry = this.#toolCalls.get(toolCallKey(runId, toolCallId));
    if (entry === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
    if (entry.record.decision !== null) return { applied: false, decision: jsonCopy(entry.record.decision) };
    entry.record.decision = jsonCopy(decision);
    entry.record.updatedAt = this.#now();
    return { applied: true, decision: jsonCopy(decision) };
  }

  async claimExecution(runId: string, toolCallId: string): Promise<boolean> {
    const entry = this.#toolCalls.get(toolCallKey(runId, toolCallId));
    if (entry === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
    if (entry.executed) return false;
    entry.executed = true;
    entry.record.updatedAt = this.#now();
    return true;
  }

  async recordToolResult(
    runId: string,
    toolCallId: string,
    result: HostToolResult,
  ): Promise<{ applied: boolean; existing: HostToolResult }> {
    const stored = hostToolResult(result);
    const entry = this.#toolCalls.get(toolCallKey(runId, toolCallId));
    if (entry === undefined) throw notFound('tool call', `${runId}/${toolCallId}`);
    if (entry.record.effect !== 'host') throw notHostCall(runId, toolCallId, entry.record.effect);
    if (entry.record.hostResult !== undefined)
      return { applied: false, existing: jsonCopy(entry.record.hostResult) };
    entry.record.hostResult = jsonCopy(stored);
    entry.record.updatedAt = this.#now();
    return { applied: true, existing: jsonCopy(stored) };
  }
}

function toolCallKey(runId: string, toolCallId: string): string {
  return `${runId}\u0000${toolCallId}`;
}

function jsonCopyRecord(record: ToolCallRecord): ToolCallRecord {
  const copy: ToolCallRecord = {
    ...record,
    args: jsonCopy(record.args),
    decision: jsonCopy(record.decision),
  };
  if (record.result !== undefined) copy.result = jsonCopy(record.result);
  if (record.error !== undefined) copy.error = jsonCopy(record.error);
  if (record.hostResult !== undefined) copy.hostResult = jsonCopy(record.hostResult);
  return copy;
}
