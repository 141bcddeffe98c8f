import type { ChatMessage, ToolCallRequest } from '../../models/index.ts';
import type { HostToolResult } from '../../store/index.ts';
import type { AgentCheckpoint, PendingHostCall } from '../agent/agent-checkpoint.ts';
import type { AgentParts } from '../agent/agent-parts.ts';
import type { HostToolValidator } from './host-tool.ts';
import { parseOutput } from './tool-result-submission.ts';

/** The error code of a host tool call the host answered with an error. */
export const HOST_TOOL_FAILED = 'host_tool_failed';

/**
 * Validate and vet a host tool call and add it to `hostPending`: the host runs it once the run has
 * paused. Returns the tool message for the model when the call fails, else undefined (it waits for
 * its result).
 */
export async function requestHostResult(
  parts: AgentParts,
  host: HostToolValidator,
  request: ToolCallRequest,
  blockId: string,
  rawArgs: unknown,
  hostPending: PendingHostCall[],
): Promise<string | undefined> {
  const vetted = await parts.execution.validateAndVet(request, blockId, rawArgs, (args) =>
    host.validate(args),
  );
  if ('failed' in vetted) return vetted.failed;
  // The block keeps `pending`: the host runs the call once the run has paused.
  parts.options.log.append({
    type: 'block.updated',
    blockId,
    kind: 'tool',
    toolCallId: request.id,
    args: vetted.args,
  });
  hostPending.push({
    toolCallId: request.id,
    name: request.name,
    args: vetted.args,
    blockId,
    audit: parts.calls.pendingAudit(request.id),
  });
  return undefined;
}

/**
 * Apply the host's results to a checkpoint paused for them: each tool block ends `done` with the
 * output (parsed as JSON when it is JSON) or `failed` with the host's error, and `run.resumed`
 * follows. Returns the transcript with the outputs as tool messages.
 */
export function applyHostResults(
  parts: AgentParts,
  checkpoint: AgentCheckpoint,
  results: ReadonlyMap<string, HostToolResult>,
): ChatMessage[] {
  const { options, blocks, calls, execution } = parts;
  const { log } = options;
  const hostPending = checkpoint.hostPending ?? [];
  for (const call of hostPending) {
    if (!results.has(call.toolCallId)) throw new Error(`no result for host tool call ${call.toolCallId}`);
  }
  calls.reopen(checkpoint);
  const transcript = [...checkpoint.transcript];
  for (const call of hostPending) {
    const result = results.get(call.toolCallId) as HostToolResult;
    const openedAt = calls.get(call.toolCallId)?.audit.openedAt ?? Date.now();
    if ('output' in result) {
      execution.showResult(call.toolCallId, call.blockId, parseOutput(result.output));
      blocks.endBlock(call.blockId);
      calls.audit(call.toolCallId, 'done', { durationMs: Date.now() - openedAt });
      transcript.push({ role: 'tool', toolCallId: call.toolCallId, content: result.output });
    } else {
      const error = { code: HOST_TOOL_FAILED, message: result.error };
      log.append({
        type: 'block.updated',
        blockId: call.blockId,
        kind: 'tool',
        toolCallId: call.toolCallId,
        status: 'failed',
        error,
      });
      blocks.endBlock(call.blockId);
      calls.audit(call.toolCallId, 'failed', {
        error: `${HOST_TOOL_FAILED}: ${result.error}`,
        durationMs: Date.now() - openedAt,
      });
      transcript.push({ role: 'tool', toolCallId: call.toolCallId, content: JSON.stringify({ error }) });
    }
  }
  log.append({
    type: 'run.resumed',
    reason: 'tool_result',
    toolCallIds: hostPending.map((call) => call.toolCallId),
  });
  return transcript;
}
