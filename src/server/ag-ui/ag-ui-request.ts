import { z } from 'zod';

/**
 * `RunAgentInput` of AG-UI 1.0 (`@ag-ui/core`), as far as runstream reads it: loose objects, since the
 * protocol lets producers add fields and a client sends back every message it holds (reasoning and
 * activity messages too). Checked here rather than with `@ag-ui/core`'s validators: the server
 * does not depend on the client package.
 */

/** A client sends its whole history on every run: tool outputs and long threads need room. */
export const AG_UI_MAX_BODY_BYTES = 1024 * 1024;

const Id = z.string().min(1).max(200);

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
/** Images, audio, documents: accepted in history, not read (the model here takes text). */
const OtherPart = z.looseObject({ type: z.enum(['image', 'audio', 'video', 'document']) });
const Content = z.union([z.string(), z.array(z.union([TextPart, OtherPart]))]);

const UserMessage = z.looseObject({ id: Id, role: z.literal('user'), content: Content });
const ToolMessage = z.looseObject({
  id: Id,
  role: z.literal('tool'),
  toolCallId: Id,
  content: Content,
  error: z.string().max(10_000).optional(),
});
const InstructionMessage = z.looseObject({
  id: Id,
  role: z.enum(['system', 'developer']),
  content: z.string().max(20_000),
});
/** Messages the client echoes from earlier runs; the conversation already has them. */
const EchoedMessage = z.looseObject({ id: Id, role: z.enum(['assistant', 'activity', 'reasoning']) });

export const AgUiMessageSchema = z.discriminatedUnion('role', [
  UserMessage,
  ToolMessage,
  InstructionMessage,
  EchoedMessage,
]);
export type AgUiMessage = z.infer<typeof AgUiMessageSchema>;

export const AgUiToolSchema = z.looseObject({
  name: z.string().min(1).max(64),
  description: z.string().max(16_384),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const ContextEntry = z.looseObject({ description: z.string().max(2_000), value: z.string().max(20_000) });

/** A decision in a resume entry's payload: `{decision, note?}`, or the bare word. */
const DecisionPayload = z.union([
  z.enum(['approve', 'reject']),
  z.looseObject({ decision: z.enum(['approve', 'reject']), note: z.string().max(500).optional() }),
]);

const ResumeEntry = z.looseObject({
  interruptId: Id,
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});

export const RunAgentInputSchema = z.looseObject({
  threadId: Id,
  runId: Id,
  state: z.unknown().optional(),
  messages: z.array(AgUiMessageSchema).max(2_000),
  tools: z.array(AgUiToolSchema).max(128).optional(),
  context: z.array(ContextEntry).max(64).optional(),
  forwardedProps: z.unknown().optional(),
  resume: z.array(ResumeEntry).max(64).optional(),
});
export type RunAgentInput = z.infer<typeof RunAgentInputSchema>;
export type AgUiResumeEntry = z.infer<typeof ResumeEntry>;

/** The text of a message's content: a string, or its text parts joined. */
export function contentText(content: z.infer<typeof Content>): string {
  if (typeof content === 'string') return content;
  return content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('');
}

/**
 * The agent the input names: `forwardedProps.agentId` (AG-UI's place for what a client passes on to
 * the agent), `undefined` when it names none, or a reason it is not one.
 */
export function requestedAgentOf(
  input: RunAgentInput,
): { agentId: string | undefined } | { invalid: string } {
  const props = input.forwardedProps;
  if (typeof props !== 'object' || props === null || !('agentId' in props)) return { agentId: undefined };
  const agentId = (props as { agentId: unknown }).agentId;
  if (agentId === undefined || agentId === null) return { agentId: undefined };
  if (typeof agentId !== 'string' || agentId.length > 64)
    return { invalid: 'forwardedProps.agentId must be an agent id (a string of at most 64 characters)' };
  return { agentId: agentId.trim() };
}

/** A resume entry as runstream's decision, or a reason it is not one. */
export function decisionOf(
  entry: AgUiResumeEntry,
): { decision: 'approve' | 'reject'; note?: string } | { invalid: string } {
  // Cancelling an interrupt is AG-UI's way past a question the person will not answer: a rejection.
  if (entry.status === 'cancelled') return { decision: 'reject', note: 'cancelled' };
  const parsed = DecisionPayload.safeParse(entry.payload);
  if (!parsed.success)
    return {
      invalid: `resume ${entry.interruptId}: payload must be {"decision": "approve" | "reject", "note"?: string}`,
    };
  if (typeof parsed.data === 'string') return { decision: parsed.data };
  return {
    decision: parsed.data.decision,
    ...(parsed.data.note === undefined ? {} : { note: parsed.data.note }),
  };
}
