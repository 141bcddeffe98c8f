import { z } from 'zod';
import { MessageSchema, TokenUsageSchema } from '../protocol/index.ts';

/**
 * The conversation resources of docs/api.md as the client returns them. Parsed with zod so a server
 * of another protocol version fails loudly here instead of rendering half a message.
 */
export const ConversationSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  /** The agent the conversation talks to; absent from servers older than multi-agent support. */
  agentId: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number().optional(),
});
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

export const UserMessageViewSchema = z.object({
  id: z.string(),
  role: z.literal('user'),
  status: z.string(),
  text: z.string(),
  createdAt: z.number().optional(),
});
export type UserMessageView = z.infer<typeof UserMessageViewSchema>;

export const AssistantMessageViewSchema = z.object({
  id: z.string(),
  role: z.literal('assistant'),
  status: z.string(),
  runId: z.string().nullable(),
  lastSeq: z.number(),
  /** The persisted protocol message: `fromMessage()` turns it back into reducer state. */
  message: MessageSchema,
  createdAt: z.number().optional(),
});
export type AssistantMessageView = z.infer<typeof AssistantMessageViewSchema>;

export const ConversationMessageViewSchema = z.discriminatedUnion('role', [
  UserMessageViewSchema,
  AssistantMessageViewSchema,
]);
export type ConversationMessageView = z.infer<typeof ConversationMessageViewSchema>;

export const ConversationDetailSchema = z.object({
  id: z.string(),
  title: z.string(),
  agentId: z.string().optional(),
  createdAt: z.number(),
  messages: z.array(ConversationMessageViewSchema),
});
export type ConversationDetail = z.infer<typeof ConversationDetailSchema>;

export const ConversationListSchema = z.object({ data: z.array(ConversationSummarySchema) });

export const RunViewSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  messageId: z.string(),
  status: z.string(),
  cancelReason: z.string().optional(),
  lastSeq: z.number(),
  /** What the run's model calls cost so far; absent when the provider reported nothing. */
  usage: TokenUsageSchema.optional(),
});
export type RunView = z.infer<typeof RunViewSchema>;
