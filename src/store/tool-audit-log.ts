/**
 * The audit log of tool calls: one entry per call once its outcome is known (it ran, failed, was
 * denied by a policy, rejected by its owner, cancelled with its run), with who asked, the arguments,
 * the policies' decision and the trace id. The runtime writes it (`RunManagerOptions.audit`); a
 * deployment reads it per user, and per run.
 */

/**
 * Which face of the server started the run: the chat API, the Responses API, or one of the
 * ecosystem's dialects (the AI SDK's UI message stream, AG-UI; docs/integrations.md).
 */
export type ToolCallFace = 'chat' | 'responses' | 'ai-sdk' | 'ag-ui';

export interface ToolAuditEntry {
  /** When the outcome was known, epoch milliseconds. */
  at: number;
  runId: string;
  conversationId: string;
  toolCallId: string;
  /** The tool's machine name as the model called it. */
  name: string;
  /** The run's owner. */
  userId: string;
  traceId?: string;
  face: ToolCallFace;
  /** `server`: a tool of this server (or `load_skill`); `host`: a tool the caller runs itself. */
  executor: 'server' | 'host';
  effect: 'read' | 'write' | 'host';
  /** The arguments the tool saw (after any rewrite), or the model's when they never validated. */
  args: unknown;
  /** The model's arguments when a policy rewrote them. */
  originalArgs?: unknown;
  /** `allow` also when no policy ran (a call that failed validation first). */
  decision: 'allow' | 'deny' | 'rewrite';
  /** The policy that denied, or the last one that rewrote. */
  policy?: string;
  reason?: string;
  outcome: 'done' | 'failed' | 'denied' | 'rejected' | 'cancelled' | 'timeout';
  /** What went wrong, for `failed`, `timeout` and `cancelled`: usually `code: message`. */
  error?: string;
  durationMs?: number;
}

export interface ToolAuditFilter {
  userId: string;
  runId?: string;
  /** Default 100, at most 1,000. */
  limit?: number;
}

export interface ToolAuditLog {
  record(entry: ToolAuditEntry): Promise<void>;
  /** The user's entries (of one run, when given), newest first. */
  list(filter: ToolAuditFilter): Promise<ToolAuditEntry[]>;
}

export const TOOL_AUDIT_DEFAULT_LIMIT = 100;
export const TOOL_AUDIT_MAX_LIMIT = 1000;

/** The number of entries a `list` returns at most. */
export function toolAuditLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return TOOL_AUDIT_DEFAULT_LIMIT;
  return Math.min(TOOL_AUDIT_MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

/** The audit log in memory, for tests and for a server without a database. */
export class MemoryToolAuditLog implements ToolAuditLog {
  readonly #entries: ToolAuditEntry[] = [];

  async record(entry: ToolAuditEntry): Promise<void> {
    this.#entries.push(jsonCopy(entry));
  }

  async list(filter: ToolAuditFilter): Promise<ToolAuditEntry[]> {
    const limit = toolAuditLimit(filter.limit);
    const found: ToolAuditEntry[] = [];
    for (let index = this.#entries.length - 1; index >= 0 && found.length < limit; index -= 1) {
      const entry = this.#entries[index];
      if (entry === undefined || entry.userId !== filter.userId) continue;
      if (filter.runId !== undefined && entry.runId !== filter.runId) continue;
      found.push(jsonCopy(entry));
    }
    return found;
  }
}

/** A copy as a trip through SQLite would make it (keys with `undefined` values dropped). */
function jsonCopy(entry: ToolAuditEntry): ToolAuditEntry {
  const { args, originalArgs, ...rest } = entry;
  const copy = JSON.parse(JSON.stringify(rest)) as ToolAuditEntry;
  copy.args = args === undefined ? undefined : JSON.parse(JSON.stringify(args));
  if (originalArgs !== undefined) copy.originalArgs = JSON.parse(JSON.stringify(originalArgs));
  return copy;
}
