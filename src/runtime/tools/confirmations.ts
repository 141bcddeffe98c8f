import type { ChatMessage, ToolCallRequest } from '../../models/index.ts';
import type { AgentCheckpoint, PendingWrite } from '../agent/agent-checkpoint.ts';
import type { AgentParts } from '../agent/agent-parts.ts';
import { messageOf } from '../agent/message-of.ts';
import { formatMessage, RUN_MESSAGES } from '../agent/run-messages.ts';
import { type AnyTool, ToolError } from './tool.ts';
import { toolSchemaHash } from './tool-schema-hash.ts';

/**
 * Show the confirmation card of a write call whose arguments were vetted, and add the call to
 * `pending`: it does not run before the run's owner approves. Returns the tool message for the model
 * when the card cannot be made, else undefined (the call waits for its decision).
 */
export async function requestConfirmation(
  parts: AgentParts,
  tool: AnyTool,
  request: ToolCallRequest,
  blockId: string,
  args: unknown,
  pending: PendingWrite[],
): Promise<string | undefined> {
  const { log, signal } = parts.options;
  let card: Awaited<ReturnType<NonNullable<AnyTool['confirm']>>>;
  try {
    card = tool.confirm
      ? await tool.confirm(args, parts.execution.toolContext(request.id, signal))
      : { title: tool.title, description: tool.description, details: [] };
  } catch (error) {
    return parts.execution.fail(
      request.id,
      blockId,
      error instanceof ToolError ? error.code : 'tool_failed',
      messageOf(error),
    );
  }
  log.append({
    type: 'block.updated',
    blockId,
    kind: 'tool',
    toolCallId: request.id,
    status: 'awaiting_confirmation',
  });
  const confirmBlockId = parts.blocks.newBlockId();
  log.append({
    type: 'block.started',
    blockId: confirmBlockId,
    kind: 'confirm',
    toolCallId: request.id,
    ...card,
  });
  pending.push({
    toolCallId: request.id,
    name: tool.name,
    args,
    blockId,
    confirmBlockId,
    schema: toolSchemaHash(tool),
    audit: parts.calls.pendingAudit(request.id),
  });
  return undefined;
}

/**
 * Apply the decisions on a paused checkpoint's pending writes: approved calls run (once: `execute`
 * claims the single execution), rejected ones are reported to the model as rejected. Returns the
 * transcript with their tool messages.
 */
export async function applyDecisions(
  parts: AgentParts,
  checkpoint: AgentCheckpoint,
  decisions: ReadonlyMap<string, 'approve' | 'reject'>,
  execute: (call: PendingWrite) => Promise<boolean>,
): Promise<ChatMessage[]> {
  const { options, blocks, calls, execution } = parts;
  const { log } = options;
  calls.reopen(checkpoint);
  // The cards show their decisions first, then the run goes on where it paused.
  for (const call of checkpoint.pending) {
    const decision = decisions.get(call.toolCallId) ?? 'reject';
    log.append({
      type: 'block.updated',
      blockId: call.confirmBlockId,
      kind: 'confirm',
      status: decision === 'approve' ? 'approved' : 'rejected',
      decision: { decision, decidedAt: Date.now() },
    });
    blocks.endBlock(call.confirmBlockId);
  }
  log.append({
    type: 'run.resumed',
    reason: 'confirmation',
    toolCallIds: checkpoint.pending.map((call) => call.toolCallId),
  });
  const transcript = [...checkpoint.transcript];
  for (const call of checkpoint.pending) {
    if (decisions.get(call.toolCallId) === 'approve') {
      // `execute` claims the single execution; a second claim (a double approve) runs nothing.
      if (!(await execute(call))) {
        calls.delete(call.toolCallId);
        continue;
      }
      const tool = options.tools.find((candidate) => candidate.name === call.name);
      const changed = agentChange(tool, call);
      const content =
        tool !== undefined && changed === undefined
          ? await execution.run(tool, call.toolCallId, call.blockId, call.args)
          : refuseChanged(parts, call, changed ?? `${call.name} removed`);
      transcript.push({ role: 'tool', toolCallId: call.toolCallId, content });
    } else {
      log.append({
        type: 'block.updated',
        blockId: call.blockId,
        kind: 'tool',
        toolCallId: call.toolCallId,
        status: 'rejected',
      });
      blocks.endBlock(call.blockId);
      calls.audit(call.toolCallId, 'rejected');
      transcript.push({
        role: 'tool',
        toolCallId: call.toolCallId,
        content: JSON.stringify({
          rejected: true,
          message: (options.messages ?? RUN_MESSAGES['zh-CN']).toolRejected,
        }),
      });
    }
  }
  return transcript;
}

/** What changed in the call's tool since its card was shown, if anything. */
function agentChange(tool: AnyTool | undefined, call: PendingWrite): string | undefined {
  if (tool === undefined) return `${call.name} removed`;
  if (call.schema !== undefined && call.schema !== toolSchemaHash(tool)) return `${call.name} changed`;
  return undefined;
}

/**
 * An approved call whose tool changed since the card: it does not run. The tool block fails with the
 * reason (the model reads it) and an error block tells the person, in a block a refresh keeps.
 */
function refuseChanged(parts: AgentParts, call: PendingWrite, detail: string): string {
  const messages = parts.options.messages ?? RUN_MESSAGES['zh-CN'];
  const text = formatMessage(messages.agentChanged, { detail });
  const content = parts.execution.fail(call.toolCallId, call.blockId, 'agent_changed', text);
  const blockId = parts.blocks.newBlockId();
  parts.options.log.append({ type: 'block.started', blockId, kind: 'error' });
  parts.options.log.append({ type: 'block.delta', blockId, text });
  parts.blocks.endBlock(blockId, 'done');
  return content;
}
