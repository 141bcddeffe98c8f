// An agent as a user writes one in plain JavaScript against the installed package: `defineAgent` and
// `tool` from `runstream`, one tool with a zod input schema that waits for the shopper's approval on
// a card, one with a plain JSON Schema that only reads.
import { defineAgent, tool } from 'runstream';
import { z } from 'zod';

/** Every order the shop knows; `cancel_order` marks them here, so a test can see the write happened. */
export const orders = new Map([
  ['A1001', { item: 'Kettle', status: 'paid' }],
  ['B2002', { item: 'Desk lamp', status: 'paid' }],
]);

const cancelOrder = tool({
  name: 'cancel_order',
  title: 'Cancel order',
  description: 'Cancel an order that has not shipped.',
  inputSchema: z.object({ orderId: z.string().describe('Order number') }),
  needsApproval: true,
  confirmation: ({ orderId }) => ({
    title: 'Cancel order',
    description: `Order ${orderId} · ${orders.get(orderId)?.item ?? 'unknown item'}`,
    fields: [{ label: 'Order number', value: orderId }],
  }),
  execute: ({ orderId }) => {
    const order = orders.get(orderId);
    if (order === undefined) throw new Error(`no order ${orderId}`);
    order.status = 'cancelled';
    return { orderId, status: order.status, refund: `R-${orderId}` };
  },
});

const trackOrder = tool({
  name: 'track_order',
  title: 'Track order',
  description: 'Where an order is.',
  inputSchema: {
    type: 'object',
    properties: { orderId: { type: 'string', description: 'Order number' } },
    required: ['orderId'],
    additionalProperties: false,
  },
  readOnly: true,
  execute: ({ orderId }) => ({ orderId, status: orders.get(orderId)?.status ?? 'unknown' }),
});

export const supportAgent = defineAgent({
  id: 'support',
  name: 'Support',
  language: 'en',
  instructions: 'You help shoppers with their orders.',
  tools: [cancelOrder, trackOrder],
  ui: { greeting: 'Ask me to cancel an order.' },
});
