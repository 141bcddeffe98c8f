import { z } from 'zod';

/** A chat's whole history comes with every request (as `DefaultChatTransport` sends it). */
export const AI_SDK_MAX_BODY_BYTES = 2 * 1024 * 1024;

/** One part of a UI message: only the fields read here are checked, the rest pass through. */
const UiPartSchema = z.looseObject({ type: z.string().min(1).max(200) });

const UiMessageSchema = z.looseObject({
  id: z.string().max(200).optional(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(UiPartSchema).max(2000),
});
export type UiMessageInput = z.infer<typeof UiMessageSchema>;

/** A tool the client executes itself (`onToolCall` + `addToolOutput`): a runstream host tool. */
const ClientToolSchema = z.object({
  name: z.string().min(1).max(64),
  description: z.string().max(16_384).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The body `DefaultChatTransport` posts: the chat `id`, its `messages`, the `trigger` and an optional
 * `messageId`, plus whatever the app adds with the transport's `body` (runstream reads `tools` and
 * `agentId`, the agent a new chat talks to).
 */
export const AiSdkChatRequestSchema = z.looseObject({
  id: z.string().trim().min(1).max(200),
  messages: z.array(UiMessageSchema).min(1).max(10_000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().max(200).optional(),
  tools: z.array(ClientToolSchema).max(128).optional(),
  agentId: z.string().trim().max(64).optional(),
});
export type AiSdkChatRequest = z.infer<typeof AiSdkChatRequestSchema>;

/** A decision the client made with `addToolApprovalResponse`, found in the last assistant message. */
export interface ApprovalAnswer {
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

/** A result the client gave with `addToolOutput` for a tool it executes itself. */
export type ClientToolAnswer = { toolCallId: string; output: string } | { toolCallId: string; error: string };

/** The text of a user message: its text parts, joined. */
export function userTextOf(message: UiMessageInput): string {
  return message.parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
    .trim();
}

/**
 * What the client answered in its last assistant message: approvals (`approval-responded`) and the
 * outputs of its own tools (`output-available`, `output-error`). Which of them the paused run waits
 * for is for the caller to tell: the client sends earlier, already taken answers again.
 */
export function answersOf(message: UiMessageInput): {
  approvals: ApprovalAnswer[];
  outputs: ClientToolAnswer[];
} {
  const approvals: ApprovalAnswer[] = [];
  const outputs: ClientToolAnswer[] = [];
  for (const part of message.parts) {
    if (!(part.type.startsWith('tool-') || part.type === 'dynamic-tool')) continue;
    const toolCallId = part.toolCallId;
    if (typeof toolCallId !== 'string' || toolCallId === '') continue;
    const approval = part.approval as { approved?: unknown; reason?: unknown } | undefined;
    if (part.state === 'approval-responded' && typeof approval?.approved === 'boolean')
      approvals.push({
        toolCallId,
        approved: approval.approved,
        ...(typeof approval.reason === 'string' && approval.reason !== ''
          ? { reason: approval.reason.slice(0, 500) }
          : {}),
      });
    else if (part.state === 'output-available')
      outputs.push({
        toolCallId,
        output: typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null),
      });
    else if (part.state === 'output-error')
      outputs.push({
        toolCallId,
        error: typeof part.errorText === 'string' ? part.errorText : 'the tool failed',
      });
  }
  return { approvals, outputs };
}
