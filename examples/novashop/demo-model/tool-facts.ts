import { z } from 'zod';
import { itemLine } from '../orders/order-repository.ts';
import { familyOfItem } from './intent.ts';

/**
 * The facts the demo model reads out of tool results. It reads them like a model would, without
 * trusting the shape: whatever does not parse is left out, never invented.
 */

const ItemSchema = z.object({
  name: z.string(),
  spec: z.string().optional().catch(undefined),
  includes: z.array(z.string()).optional().catch(undefined),
  quantity: z.number().optional().catch(undefined),
});

const OrderFactsSchema = z.object({
  orderId: z.string(),
  status: z.string(),
  items: z.array(ItemSchema).catch([]),
  paidAmount: z.string().optional().catch(undefined),
  shipment: z.object({ carrier: z.string(), trackingNumber: z.string() }).nullish().catch(undefined),
  cancelReason: z.string().nullish().catch(undefined),
  refund: z.object({ amount: z.string(), to: z.string(), status: z.string() }).nullish().catch(undefined),
});
export type OrderFacts = z.infer<typeof OrderFactsSchema>;

const EvidenceSchema = z.object({
  lowEvidence: z.boolean().catch(false),
  hits: z
    .array(
      z.object({
        text: z.string(),
        // The clause's passage; a search without it (an older tool, a fake) gives the clause alone.
        context: z.string().optional().catch(undefined),
        section: z.string().catch(''),
        citation: z.string().catch(''),
        // Where each line of the context is; without it, the hit's citation stands for the passage.
        contextCitations: z.array(z.string()).optional().catch(undefined),
      }),
    )
    .catch([]),
});
export type Evidence = z.infer<typeof EvidenceSchema>;
export type EvidenceHit = Evidence['hits'][number];

const CancelFactsSchema = z.object({
  orderId: z.string(),
  items: z.string().optional().catch(undefined),
  paidAmount: z.string().optional().catch(undefined),
  refund: z.object({ amount: z.string(), to: z.string(), status: z.string() }).nullish().catch(undefined),
  alreadyCancelled: z.boolean().catch(false),
});
export type CancelFacts = z.infer<typeof CancelFactsSchema>;

const SkillFactsSchema = z.object({ name: z.string().optional(), title: z.string().optional() });

/** The orders in a `query_order` result (`{orders: […]}`), in the order given. */
export function ordersIn(value: unknown): OrderFacts[] {
  const list = z.object({ orders: z.array(z.unknown()) }).safeParse(value);
  if (!list.success) return [];
  return list.data.orders.flatMap((order) => {
    const parsed = OrderFactsSchema.safeParse(order);
    return parsed.success ? [parsed.data] : [];
  });
}

export function evidenceIn(value: unknown): Evidence | undefined {
  const parsed = EvidenceSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function cancelFactsIn(value: unknown): CancelFacts | undefined {
  const parsed = CancelFactsSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

export function skillTitleIn(value: unknown): string | undefined {
  const parsed = SkillFactsSchema.safeParse(value);
  return parsed.success ? (parsed.data.title ?? parsed.data.name) : undefined;
}

/** `Apple Watch Series 12（深空灰色、42毫米、铝金属、GPS）· 回环式运动表带`. */
export function itemsLine(order: OrderFacts): string {
  if (order.items.length === 0) return '（商品信息缺失）';
  return order.items.map(itemLine).join('；');
}

/** What the shopper would call the order: Apple Watch, NovaTrail X2 … or the first item's name. */
export function orderLabel(order: OrderFacts): string {
  const first = order.items[0];
  if (first === undefined) return `订单 ${order.orderId}`;
  return familyOfItem(first.name)?.label ?? first.name;
}
