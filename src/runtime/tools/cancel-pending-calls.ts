import type { RunRecord, RunStore } from '../../store/index.ts';
import type { AgentContext } from '../agent/agent-options.ts';
import type { RunCheckpoint } from '../runs/run-options.ts';
import { toolAuditEntry } from './tool-audit.ts';
import type { ToolAuditRecorder } from './tool-audit-recorder.ts';

/** A paused run was stopped: the calls it waited on end cancelled, in the store and the audit log. */
export async function cancelPendingCalls(
  store: RunStore,
  audit: ToolAuditRecorder,
  run: RunRecord,
  context: AgentContext,
  checkpoint: RunCheckpoint,
  reason: string,
  onError?: (runId: string, error: unknown) => void,
): Promise<void> {
  const now = Date.now();
  const calls = [
    ...checkpoint.pending.map((call) => ({ ...call, executor: 'server' as const, effect: 'write' as const })),
    ...(checkpoint.hostPending ?? []).map((call) => ({
      ...call,
      executor: 'host' as const,
      effect: 'host' as const,
    })),
  ];
  for (const call of calls) {
    const opened = call.audit ?? { decision: 'allow' as const, openedAt: now };
    audit.record(
      run.id,
      toolAuditEntry(
        context,
        {
          toolCallId: call.toolCallId,
          name: call.name,
          args: call.args,
          executor: call.executor,
          effect: call.effect,
          audit: opened,
        },
        'cancelled',
        { error: `run_cancelled: ${reason}`, durationMs: now - opened.openedAt, at: now },
      ),
    );
    try {
      const record = await store.getToolCall(run.id, call.toolCallId);
      if (record === undefined) throw new Error(`no tool call ${call.toolCallId} in run ${run.id}`);
      const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = record;
      await store.saveToolCall({ ...rest, status: 'cancelled' });
    } catch (error) {
      onError?.(run.id, error);
    }
  }
}
