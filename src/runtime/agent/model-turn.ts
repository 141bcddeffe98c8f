import type {
  ChatMessage,
  FinishReason,
  ReasoningPart,
  TokenUsage,
  ToolCallRequest,
  ToolDefinition,
} from '../../models/index.ts';
import type { RunBlocks } from '../log/run-blocks.ts';
import type { AgentOptions } from './agent-options.ts';
import { LOAD_SKILL_TOOL } from './load-skill.ts';
import { RUN_MESSAGES } from './run-messages.ts';

/** How often a turn looks at the clock, in parts. */
const YIELD_CHECK_PARTS = 16;
/**
 * How long a turn runs without yielding at most. Each yield lets every socket be written once, so a
 * longer slice means fewer, larger writes (one per socket per slice, the write being what costs);
 * 1 ms keeps other runs and requests waiting no longer than a typical request takes.
 */
const YIELD_AFTER_MS = 1;

export interface ModelTurn {
  text: string;
  reasoning: string;
  /** Set when the provider signed or encrypted its reasoning, which must then go back as it came. */
  reasoningParts?: ReasoningPart[];
  calls: { request: ToolCallRequest; blockId: string }[];
  finishReason: FinishReason;
  /** What the provider reported the turn cost; absent when it reported nothing. */
  usage?: TokenUsage;
}

/** The assistant message a turn adds to the transcript: what the model said, thought and called. */
export function assistantMessageOf(turn: ModelTurn): ChatMessage {
  return {
    role: 'assistant',
    content: turn.text,
    ...(turn.reasoning ? { reasoning: turn.reasoning } : {}),
    ...(turn.reasoningParts ? { reasoningParts: turn.reasoningParts } : {}),
    ...(turn.calls.length > 0 ? { toolCalls: turn.calls.map((call) => call.request) } : {}),
  };
}

/** One macrotask turn, so sockets get written and other runs get their share. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Stream one model turn into blocks; returns its text and tool calls. */
export async function streamModelTurn(
  options: Pick<AgentOptions, 'log' | 'model' | 'signal' | 'tools' | 'messages'>,
  blocks: RunBlocks,
  transcript: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
): Promise<ModelTurn> {
  const { log, model, signal } = options;
  let openText: { blockId: string; kind: 'reasoning' | 'answer' } | undefined;
  // Pieces joined once at the end: a string grown by `+=` per delta would keep a chain of a thousand
  // cons cells alive for the whole turn, for the garbage collector to copy.
  const text: string[] = [];
  const reasoning: string[] = [];
  // Signed or encrypted pieces (Anthropic); `signedFrom` is where the unsigned reasoning begins.
  const reasoningParts: ReasoningPart[] = [];
  let signedFrom = 0;
  let keepParts = false;
  let finishReason: FinishReason = 'other';
  let usage: TokenUsage | undefined;
  const toolBlocks = new Map<number, { blockId: string; id: string; name: string }>();
  const calls: ModelTurn['calls'] = [];
  const closeText = () => {
    if (openText) blocks.endBlock(openText.blockId, 'done');
    openText = undefined;
  };
  const writeText = (kind: 'reasoning' | 'answer', delta: string) => {
    if (delta.length === 0) return;
    if (openText?.kind !== kind) {
      closeText();
      openText = { blockId: blocks.newBlockId(), kind };
      log.append({ type: 'block.started', blockId: openText.blockId, kind });
    }
    log.appendDelta(openText.blockId, delta);
  };
  let parts = 0;
  let sliceStart = performance.now();
  for await (const part of model.stream({ messages: transcript, tools, signal })) {
    // A model that answers without pauses (a local one, a scripted one) would otherwise produce the
    // whole turn in one macrotask: no byte reaches any socket, and concurrent runs wait in line. The
    // first check always yields, so the first events leave at once.
    parts += 1;
    if (parts % YIELD_CHECK_PARTS === 0) {
      const now = performance.now();
      if (parts === YIELD_CHECK_PARTS || now - sliceStart >= YIELD_AFTER_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    switch (part.type) {
      case 'reasoning-delta':
        reasoning.push(part.text);
        writeText('reasoning', part.text);
        break;
      case 'reasoning-signature':
        reasoningParts.push({
          type: 'text',
          text: reasoning.slice(signedFrom).join(''),
          signature: part.signature,
        });
        signedFrom = reasoning.length;
        keepParts = true;
        break;
      case 'reasoning-redacted':
        // Nothing to show: the provider encrypted it. It still goes back in the transcript.
        if (signedFrom < reasoning.length)
          reasoningParts.push({ type: 'text', text: reasoning.slice(signedFrom).join('') });
        signedFrom = reasoning.length;
        reasoningParts.push({ type: 'redacted', data: part.data });
        keepParts = true;
        break;
      case 'text-delta':
        text.push(part.text);
        writeText('answer', part.text);
        break;
      case 'tool-call-start': {
        closeText();
        const blockId = blocks.newBlockId();
        toolBlocks.set(part.index, { blockId, id: part.id, name: part.name });
        const tool = options.tools.find((candidate) => candidate.name === part.name);
        const title =
          part.name === LOAD_SKILL_TOOL
            ? (options.messages ?? RUN_MESSAGES['zh-CN']).loadSkillTitle
            : (tool?.title ?? part.name);
        log.append({
          type: 'block.started',
          blockId,
          kind: 'tool',
          toolCallId: part.id,
          name: part.name,
          title,
        });
        break;
      }
      case 'tool-call-delta': {
        const block = toolBlocks.get(part.index);
        if (block && part.argumentsDelta.length > 0) log.appendDelta(block.blockId, part.argumentsDelta);
        break;
      }
      case 'tool-call-end': {
        const block = toolBlocks.get(part.index);
        if (block)
          calls.push({
            request: { id: block.id, name: part.name, arguments: part.arguments },
            blockId: block.blockId,
          });
        break;
      }
      case 'finish':
        finishReason = part.reason;
        usage = part.usage;
        break;
    }
  }
  closeText();
  if (keepParts && signedFrom < reasoning.length)
    reasoningParts.push({ type: 'text', text: reasoning.slice(signedFrom).join('') });
  return {
    text: text.join(''),
    reasoning: reasoning.join(''),
    ...(keepParts ? { reasoningParts } : {}),
    calls,
    finishReason,
    ...(usage === undefined ? {} : { usage }),
  };
}
