import type { ToolAuditEntry, ToolAuditLog, ToolPolicy } from '../runtime/index.ts';

/**
 * `RUNSTREAM_DENY_TOOLS=cancel_order,read_file`: a policy that refuses the named tools (server or
 * host) with a reason the model reads. The simplest governance a deployment can switch on without
 * code; richer policies are `ToolPolicy` objects passed to `startServer`.
 */
export function denyToolsPolicyFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ToolPolicy | undefined {
  const names = new Set(
    (env.RUNSTREAM_DENY_TOOLS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
  if (names.size === 0) return undefined;
  return {
    name: 'deny-list',
    // Refused whatever the arguments: the model is not offered the tool at all.
    offers: (toolName) => !names.has(toolName),
    check: (call) =>
      names.has(call.name)
        ? {
            action: 'deny',
            reason: `the tool ${call.name} is disabled on this server (RUNSTREAM_DENY_TOOLS)`,
          }
        : { action: 'allow' },
  };
}

/**
 * The audit log, also written to the server's log lines: every tool call with its decision, outcome
 * and trace id, so one `traceId` finds the request, the run and each tool call it made. Arguments
 * stay in the audit table only (they may hold personal data); the log line has names and outcomes.
 */
export function loggingAuditLog(
  audit: ToolAuditLog,
  log: (line: Record<string, unknown>) => void,
): ToolAuditLog {
  return {
    async record(entry: ToolAuditEntry) {
      log({
        level: 'info',
        event: 'tool_call',
        traceId: entry.traceId,
        runId: entry.runId,
        toolCallId: entry.toolCallId,
        tool: entry.name,
        face: entry.face,
        executor: entry.executor,
        decision: entry.decision,
        ...(entry.policy ? { policy: entry.policy } : {}),
        outcome: entry.outcome,
        ...(entry.durationMs === undefined ? {} : { ms: Math.round(entry.durationMs) }),
      });
      await audit.record(entry);
    },
    list: (filter) => audit.list(filter),
  };
}
