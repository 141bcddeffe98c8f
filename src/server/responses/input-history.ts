import { type InputItem, messageText, outputText } from './responses-request.ts';

/**
 * What a request's `input` items say, read the way OpenAI reads a stateless history: the earlier
 * items are the conversation so far, the user messages at its end are the new turn, and
 * `function_call_output` / `mcp_approval_response` items answer calls or approval requests.
 */
export interface InputHistory {
  items: readonly InputItem[];
  /** The `function_call_output` items, in order. */
  outputs: { call_id: string; output: Parameters<typeof outputText>[0] }[];
  /** The `mcp_approval_response` items, in order. */
  approvals: { approval_request_id: string; approve: boolean; reason?: string | null }[];
  /** The echoed `function_call` items: `call_id` → the item's `id`, when it has one. */
  echoedCalls: Map<string, string | null>;
  /** The user messages after the last item that is not one (the new turn), joined. */
  trailingText: string;
  /** Index of the first item of the new turn (`items.length` when there is none). */
  turnStart: number;
  /** Whether anything but user messages comes before the new turn (a history to show the model). */
  hasHistory: boolean;
}

function isUserMessage(item: InputItem): boolean {
  return 'role' in item && item.role === 'user';
}

function isInstruction(item: InputItem): boolean {
  return 'role' in item && (item.role === 'system' || item.role === 'developer');
}

export function readInputHistory(input: string | readonly InputItem[]): InputHistory {
  const items: readonly InputItem[] =
    typeof input === 'string' ? [{ role: 'user', content: input } as InputItem] : input;
  let turnStart = items.length;
  while (turnStart > 0) {
    const item = items[turnStart - 1] as InputItem;
    if (!isUserMessage(item) && !isInstruction(item)) break;
    turnStart -= 1;
  }
  const outputs: InputHistory['outputs'] = [];
  const approvals: InputHistory['approvals'] = [];
  const echoedCalls = new Map<string, string | null>();
  for (const item of items) {
    if (item.type === 'function_call_output')
      outputs.push(item as unknown as InputHistory['outputs'][number]);
    else if (item.type === 'mcp_approval_response')
      approvals.push(item as unknown as InputHistory['approvals'][number]);
    else if (item.type === 'function_call') {
      const call = item as unknown as { call_id: string; id?: string | null };
      echoedCalls.set(call.call_id, call.id ?? null);
    }
  }
  const trailingText = items
    .slice(turnStart)
    .flatMap((item) =>
      isUserMessage(item) ? [messageText((item as unknown as { content: never }).content)] : [],
    )
    .join('\n\n')
    .trim();
  const hasHistory = items.slice(0, turnStart).some((item) => !isInstruction(item));
  return { items, outputs, approvals, echoedCalls, trailingText, turnStart, hasHistory };
}

/** The system and developer messages of the input: they join the instructions. */
export function instructionTexts(history: InputHistory): string[] {
  return history.items.flatMap((item) =>
    isInstruction(item) ? [messageText((item as unknown as { content: never }).content)] : [],
  );
}

/** The text of the last user message of the input, wherever it stands. */
export function lastUserText(history: InputHistory): string {
  for (let index = history.items.length - 1; index >= 0; index -= 1) {
    const item = history.items[index] as InputItem;
    if (isUserMessage(item)) return messageText((item as unknown as { content: never }).content).trim();
  }
  return '';
}

const MAX_TRANSCRIPT_CHARS = 60_000;

function lineOf(item: InputItem, names: Map<string, string>): string | undefined {
  if ('role' in item && typeof item.role === 'string') {
    if (isInstruction(item)) return undefined;
    return `${item.role}: ${messageText((item as unknown as { content: never }).content)}`;
  }
  const loose = item as Record<string, unknown>;
  switch (item.type) {
    case 'function_call':
      names.set(String(loose.call_id), String(loose.name));
      return `assistant called ${String(loose.name)}(${String(loose.arguments)}) [call ${String(loose.call_id)}]`;
    case 'function_call_output': {
      const callId = String(loose.call_id);
      const output = outputText(loose.output as Parameters<typeof outputText>[0]);
      return `${names.get(callId) ?? 'a tool'} returned [call ${callId}]: ${output}`;
    }
    case 'mcp_call':
      return `assistant called ${String(loose.name)}(${String(loose.arguments)}) on ${String(loose.server_label)}: ${String(loose.output ?? loose.error ?? '')}`;
    case 'mcp_approval_response':
      return `user ${loose.approve === true ? 'approved' : 'rejected'} request ${String(loose.approval_request_id)}`;
    default:
      return undefined;
  }
}

/**
 * The history before the new turn as text the model reads with its instructions: a stateless client
 * (or another provider's history) sends the conversation with each request, and the model must see
 * it. `current`: the new turn is not at the end (tool results follow it); it is marked in place.
 */
export function transcriptOf(history: InputHistory, current: 'trailing' | 'marked'): string {
  const names = new Map<string, string>();
  const upTo = current === 'trailing' ? history.turnStart : history.items.length;
  const lines: string[] = [];
  for (const item of history.items.slice(0, upTo)) {
    const line = lineOf(item, names);
    if (line !== undefined) lines.push(line);
  }
  if (lines.length === 0) return '';
  let text = lines.join('\n');
  if (text.length > MAX_TRANSCRIPT_CHARS) text = `…${text.slice(-MAX_TRANSCRIPT_CHARS)}`;
  const note =
    current === 'trailing'
      ? 'The conversation so far, as the client sent it (oldest first); the user message after it is the one to answer:'
      : "The conversation so far, as the client sent it (oldest first); answer the user's last message in it, using the tool results that follow it:";
  return `${note}\n${text}`;
}
