import { z } from 'zod';

/**
 * Blocks are the ordered, typed pieces of one assistant message. The server persists them and the
 * client renders them; both build them with `reduce()` from the same events.
 */

/** Epoch milliseconds. Numbers keep duration arithmetic trivial on both sides of the wire. */
export const TimestampSchema = z.number().int().nonnegative();

export const TextBlockKindSchema = z.enum(['reasoning', 'answer', 'error']);
export type TextBlockKind = z.infer<typeof TextBlockKindSchema>;

export const BlockKindSchema = z.enum(['reasoning', 'answer', 'error', 'tool', 'confirm']);
export type BlockKind = z.infer<typeof BlockKindSchema>;

/**
 * A text block streams until `block.ended`. `cancelled` and `interrupted` mark text cut short by an
 * explicit stop or by a crash, so a refreshed page can say so instead of showing a silent truncation.
 */
export const TextBlockStatusSchema = z.enum(['streaming', 'done', 'cancelled', 'interrupted']);
export type TextBlockStatus = z.infer<typeof TextBlockStatusSchema>;

export const ToolBlockStatusSchema = z.enum([
  'pending',
  'running',
  'awaiting_confirmation',
  'done',
  'failed',
  'rejected',
  'cancelled',
  'interrupted',
]);
export type ToolBlockStatus = z.infer<typeof ToolBlockStatusSchema>;

export const ConfirmBlockStatusSchema = z.enum(['pending', 'approved', 'rejected', 'expired']);
export type ConfirmBlockStatus = z.infer<typeof ConfirmBlockStatusSchema>;

/** The one error shape used on the wire: a stable machine code and a readable message. */
export const ErrorInfoSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

const blockTiming = {
  startedAt: TimestampSchema,
  endedAt: TimestampSchema.nullable(),
  durationMs: z.number().nonnegative().nullable(),
};

export const TextBlockSchema = z.object({
  blockId: z.string().min(1),
  kind: TextBlockKindSchema,
  status: TextBlockStatusSchema,
  text: z.string(),
  ...blockTiming,
});
export type TextBlock = z.infer<typeof TextBlockSchema>;

export const ToolBlockSchema = z.object({
  blockId: z.string().min(1),
  kind: z.literal('tool'),
  toolCallId: z.string().min(1),
  /** The tool's machine name, e.g. `cancel_order`. */
  name: z.string().min(1),
  /** What a person reads, e.g. 取消订单. */
  title: z.string(),
  status: ToolBlockStatusSchema,
  /** Argument text as the model streamed it; `args` holds the parsed value once known. */
  argsText: z.string(),
  args: z.unknown().optional(),
  result: z.unknown().optional(),
  error: ErrorInfoSchema.optional(),
  ...blockTiming,
});
export type ToolBlock = z.infer<typeof ToolBlockSchema>;

/** One labelled fact on a confirmation card, e.g. 订单号 · 88235. */
export const ConfirmDetailSchema = z.object({ label: z.string(), value: z.string() });
export type ConfirmDetail = z.infer<typeof ConfirmDetailSchema>;

export const ConfirmDecisionSchema = z.object({
  decision: z.enum(['approve', 'reject']),
  decidedAt: TimestampSchema,
  reason: z.string().optional(),
});
export type ConfirmDecision = z.infer<typeof ConfirmDecisionSchema>;

export const ConfirmBlockSchema = z.object({
  blockId: z.string().min(1),
  kind: z.literal('confirm'),
  /** The write tool call this card approves or rejects. */
  toolCallId: z.string().min(1),
  /** The action, e.g. 取消订单. */
  title: z.string(),
  /** The object of the action in a sentence, e.g. 订单 88235 · Apple Watch Series 12. */
  description: z.string(),
  details: z.array(ConfirmDetailSchema),
  status: ConfirmBlockStatusSchema,
  decision: ConfirmDecisionSchema.optional(),
  ...blockTiming,
});
export type ConfirmBlock = z.infer<typeof ConfirmBlockSchema>;

export const BlockSchema = z.discriminatedUnion('kind', [
  TextBlockSchema,
  ToolBlockSchema,
  ConfirmBlockSchema,
]);
export type Block = z.infer<typeof BlockSchema>;

export function isTextBlock(block: Block): block is TextBlock {
  return block.kind === 'reasoning' || block.kind === 'answer' || block.kind === 'error';
}
