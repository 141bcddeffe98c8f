import type { ResponseRecord, ResponseRecords, RunStore, ToolCallRecord, User } from '../../store/index.ts';
import { HttpError } from '../http-error.ts';
import type { InputHistory } from './input-history.ts';
import { parseItemId } from './plain-items.ts';
import { outputText } from './responses-request.ts';

/**
 * What a request without `previous_response_id` that carries `function_call_output` or
 * `mcp_approval_response` items means, found in the store (always scoped to the caller: another
 * user's call id or approval id matches nothing of theirs):
 * - `submit`: the outputs answer the open host calls of one of the caller's paused responses;
 * - `decide`: the approvals answer the pending confirmations of one of the caller's responses;
 * - `duplicate`: every output was already recorded, the same, for calls of the caller's response
 *   (a retried request): the response they resumed is the answer, nothing runs again;
 * - `supersede`: the outputs answer a paused response, but a new user message follows them: the
 *   paused response is closed and the whole input starts a new run;
 * - `transcript`: calls we have no record of (another provider's history, a finished run): a new
 *   run whose model sees the history.
 */
export type StatelessResolution =
  | { kind: 'submit'; record: ResponseRecord; outputs: InputHistory['outputs'] }
  | { kind: 'decide'; record: ResponseRecord; decisions: { toolCallId: string; approve: boolean }[] }
  | { kind: 'duplicate'; record: ResponseRecord; callId: string }
  | { kind: 'supersede'; record: ResponseRecord }
  | { kind: 'transcript' };

/** The host calls of a run still waiting for the host's output. */
export function openHostCalls(calls: readonly ToolCallRecord[]): ToolCallRecord[] {
  return calls.filter((call) => call.effect === 'host' && call.status === 'pending' && !call.hostResult);
}

function sameOutput(
  recorded: ToolCallRecord['hostResult'],
  output: Parameters<typeof outputText>[0],
): boolean {
  return recorded !== undefined && 'output' in recorded && recorded.output === outputText(output);
}

export async function resolveStatelessInput(
  store: RunStore,
  responses: ResponseRecords,
  user: User,
  history: InputHistory,
): Promise<StatelessResolution> {
  if (history.approvals.length > 0) return resolveApprovals(store, responses, user, history);
  // The caller's paused runs that wait for one of these calls, found by call id (indexed).
  const open = await store.findOpenHostCalls(
    user.id,
    history.outputs.map((output) => output.call_id),
  );
  const byRun = new Map<string, ToolCallRecord[]>();
  for (const call of open) byRun.set(call.runId, [...(byRun.get(call.runId) ?? []), call]);
  const matches: { record: ResponseRecord; open: ToolCallRecord[] }[] = [];
  for (const [runId, calls] of byRun) {
    // Only responses: a run another dialect paused for its client's tools is not this one's to answer.
    const record = await responses.get(user.id, runId);
    if (record !== undefined) matches.push({ record, open: calls });
  }
  if (matches.length > 1)
    throw new HttpError(
      400,
      'invalid_request',
      'the function_call_output items answer calls of different responses; answer one at a time',
    );
  const [match] = matches;
  if (match !== undefined) {
    if (history.trailingText !== '') return { kind: 'supersede', record: match.record };
    const answered = new Set(match.open.map((call) => call.toolCallId));
    return {
      kind: 'submit',
      record: match.record,
      outputs: history.outputs.filter((output) => answered.has(output.call_id)),
    };
  }
  // A retry of a request that resumed one of the caller's responses: the echoed function_call item
  // (its id names the run) and a recorded output that is the same.
  const last = history.outputs.at(-1);
  if (last !== undefined && history.trailingText === '') {
    const itemId = history.echoedCalls.get(last.call_id);
    const named = itemId ? parseItemId(itemId, 'fc') : undefined;
    const record = named ? await responses.get(user.id, named.runId) : undefined;
    if (record !== undefined) {
      const call = await store.getToolCall(record.id, last.call_id);
      if (call?.hostResult !== undefined) {
        if (!sameOutput(call.hostResult, last.output))
          throw new HttpError(
            409,
            'tool_result_conflict',
            `tool call ${last.call_id} already has another result`,
            {
              toolCallId: last.call_id,
              result: call.hostResult,
            },
          );
        return { kind: 'duplicate', record, callId: last.call_id };
      }
    }
  }
  return { kind: 'transcript' };
}

async function resolveApprovals(
  store: RunStore,
  responses: ResponseRecords,
  user: User,
  history: InputHistory,
): Promise<StatelessResolution> {
  if (history.outputs.length > 0 || history.trailingText !== '')
    throw new HttpError(
      400,
      'invalid_request',
      'send mcp_approval_response items on their own (without function_call_output items or a new message)',
    );
  let record: ResponseRecord | undefined;
  const decisions: { toolCallId: string; approve: boolean }[] = [];
  for (const approval of history.approvals) {
    const named = parseItemId(approval.approval_request_id, 'mcpr');
    const found = named ? await responses.get(user.id, named.runId) : undefined;
    if (found === undefined || named === undefined)
      throw new HttpError(
        400,
        'invalid_request',
        `unknown approval_request_id ${approval.approval_request_id}`,
      );
    if (record !== undefined && record.id !== found.id)
      throw new HttpError(400, 'invalid_request', 'the approvals answer requests of different responses');
    record = found;
    const message = (await store.listMessages(found.conversationId)).find(
      (candidate) => candidate.role === 'assistant' && candidate.runId === found.id,
    );
    const card =
      message?.role === 'assistant'
        ? message.message.blocks.find((block) => block.blockId === named.blockId && block.kind === 'confirm')
        : undefined;
    if (card === undefined || card.kind !== 'confirm')
      throw new HttpError(
        400,
        'invalid_request',
        `unknown approval_request_id ${approval.approval_request_id}`,
      );
    decisions.push({ toolCallId: card.toolCallId, approve: approval.approve });
  }
  if (record === undefined) return { kind: 'transcript' };
  return { kind: 'decide', record, decisions };
}
