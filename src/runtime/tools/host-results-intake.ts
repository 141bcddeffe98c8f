import type { HostToolResult, RunRecord, RunStore, ToolCallRecord } from '../../store/index.ts';
import { waitsForToolResults } from '../agent/agent-checkpoint.ts';
import { RunError } from '../runs/run-error.ts';
import type { RunCheckpoint } from '../runs/run-options.ts';
import type { ToolResultSubmission } from './host-tool.ts';
import { HOST_TOOL_FAILED } from './host-tool-calls.ts';
import { checkSubmission, parseOutput, sameResult } from './tool-result-submission.ts';

/** What a submission of host results came to: still waiting, or this caller's turn to resume. */
export type HostResultsIntake =
  | { ready: false }
  | { ready: true; run: RunRecord; checkpoint: RunCheckpoint; answers: Map<string, HostToolResult> };

/**
 * Take a submission of host tool results into the store. Validated whole before anything is
 * stored; each result is single-use: the same result again is a no-op, a different one is a
 * `tool_result_conflict`. `ready` once every call of the pause has its result and this caller won
 * the single claim to resume (here or on another instance); the calls are then saved done or failed.
 * `ownedRun` reads the run as its caller may see it (`not_found` otherwise).
 */
export async function takeHostResults(
  store: RunStore,
  runId: string,
  submitted: ToolResultSubmission[],
  ownedRun: () => Promise<RunRecord>,
): Promise<HostResultsIntake> {
  const results = checkSubmission(submitted);
  const fresh: { toolCallId: string; result: HostToolResult }[] = [];
  for (const [toolCallId, result] of results) {
    const call = await store.getToolCall(runId, toolCallId);
    if (call === undefined || call.effect !== 'host') {
      throw new RunError('unknown_tool_call', `no host tool call ${toolCallId} in this run`, {
        toolCallId,
      });
    }
    if (call.hostResult === undefined) fresh.push({ toolCallId, result });
    else if (!sameResult(call.hostResult, result)) {
      throw new RunError('tool_result_conflict', `tool call ${toolCallId} already has another result`, {
        toolCallId,
        result: call.hostResult,
      });
    }
  }
  const run = await ownedRun();
  const checkpoint = (await store.getCheckpoint(runId)) as RunCheckpoint | undefined;
  const waiting = run.status === 'paused' && checkpoint !== undefined && waitsForToolResults(checkpoint);
  if (fresh.length > 0) {
    if (run.status !== 'paused' && run.status !== 'running') {
      throw new RunError('run_finished', 'the run is no longer waiting for tool results', {
        status: run.status,
      });
    }
    if (!waiting) {
      throw new RunError('not_waiting_for_tool_results', 'the run is not waiting for tool results', {
        status: run.status,
        ...(run.status === 'paused' ? { reason: 'confirmation' } : {}),
      });
    }
    const expected = new Set((checkpoint.hostPending ?? []).map((call) => call.toolCallId));
    for (const { toolCallId } of fresh) {
      if (!expected.has(toolCallId))
        throw new RunError('unknown_tool_call', `the run is not waiting for tool call ${toolCallId}`, {
          toolCallId,
        });
    }
    for (const { toolCallId, result } of fresh) {
      const recorded = await store.recordToolResult(runId, toolCallId, result);
      // Lost a race with another process: the same result is fine, another one is a conflict.
      if (!recorded.applied && !sameResult(recorded.existing, result)) {
        throw new RunError('tool_result_conflict', `tool call ${toolCallId} already has another result`, {
          toolCallId,
          result: recorded.existing,
        });
      }
    }
  }
  if (!waiting) return { ready: false };
  // Every call of the pause needs its result; a retry also finishes a resume a crash cut short.
  const hostPending = checkpoint.hostPending ?? [];
  const answers = new Map<string, HostToolResult>();
  const records = new Map<string, ToolCallRecord>();
  for (const pending of hostPending) {
    const record = await store.getToolCall(runId, pending.toolCallId);
    if (record?.hostResult === undefined) return { ready: false };
    answers.set(pending.toolCallId, record.hostResult);
    records.set(pending.toolCallId, record);
  }
  // One resume however many submissions race (here or in another process sharing the file).
  const first = hostPending[0];
  if (first === undefined || !(await store.claimExecution(runId, first.toolCallId))) return { ready: false };
  for (const [toolCallId, record] of records) {
    const answer = answers.get(toolCallId) as HostToolResult;
    const { createdAt: _createdAt, updatedAt: _updatedAt, hostResult: _hostResult, ...rest } = record;
    await store.saveToolCall(
      'output' in answer
        ? { ...rest, status: 'done', result: parseOutput(answer.output) }
        : { ...rest, status: 'failed', error: { code: HOST_TOOL_FAILED, message: answer.error } },
    );
  }
  return { ready: true, run, checkpoint, answers };
}
