import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/**
 * A small MCP order service, built with the official SDK: the MCP server the tests (and the
 * example in docs/integrations/mcp.md) connect runstream to, over stdio or Streamable HTTP.
 *
 * - `list_orders`, `get_order`: reads (`readOnlyHint: true`); `get_order` of an unknown order
 *   answers `isError: true`.
 * - `cancel_order`: a write (`readOnlyHint: false`, destructive); a shipped order answers `isError`.
 * - `slow_export`: waits until the request is cancelled (its handler's `extra.signal`).
 *
 * Every call is written to the journal first (tool, arguments, `_meta`), so a test sees which calls
 * reached the service, for whom, and which were cancelled.
 */
export interface Order {
  orderId: string;
  item: string;
  status: 'paid' | 'shipped' | 'cancelled';
}

export type JournalEntry =
  | { event: 'started'; pid: number }
  | { event: 'called'; tool: string; args: unknown; meta: Record<string, unknown> }
  | { event: 'cancelled'; orderId: string; userId: unknown }
  | { event: 'aborted'; tool: string; reason: string };

/** The orders one service holds, shared by all its sessions. */
export class OrderBook {
  readonly orders = new Map<string, Order>();

  constructor() {
    for (const order of [
      { orderId: '1001', item: 'Aurora 降噪耳机', status: 'paid' },
      { orderId: '1002', item: 'Nova 智能手表', status: 'paid' },
      { orderId: '1003', item: 'Orbit 机械键盘', status: 'shipped' },
    ] as const)
      this.orders.set(order.orderId, { ...order });
  }
}

const SLOW_EXPORT_LIMIT_MS = 120_000;

export function createOrderService(book: OrderBook, journal: (entry: JournalEntry) => void): McpServer {
  const server = new McpServer({ name: 'order-service', version: '1.0.0' });
  const called = (tool: string, args: unknown, meta: Record<string, unknown> | undefined) =>
    journal({ event: 'called', tool, args, meta: meta ?? {} });
  const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }];

  server.registerTool(
    'list_orders',
    {
      title: 'List orders',
      description: 'List the orders, optionally only those with a status.',
      inputSchema: { status: z.enum(['paid', 'shipped', 'cancelled']).optional() },
      annotations: { readOnlyHint: true },
    },
    async (args, extra) => {
      called('list_orders', args, extra._meta);
      const orders = [...book.orders.values()].filter(
        (order) => args.status === undefined || order.status === args.status,
      );
      return { content: text(orders), structuredContent: { orders } };
    },
  );

  server.registerTool(
    'get_order',
    {
      title: 'Get an order',
      description: 'One order by its number.',
      inputSchema: { orderId: z.string().regex(/^\d+$/) },
      annotations: { readOnlyHint: true },
    },
    async (args, extra) => {
      called('get_order', args, extra._meta);
      const order = book.orders.get(args.orderId);
      if (order === undefined)
        return { isError: true, content: [{ type: 'text', text: `order ${args.orderId} not found` }] };
      return { content: text(order) };
    },
  );

  server.registerTool(
    'cancel_order',
    {
      title: 'Cancel an order',
      description: 'Cancel a paid order that has not shipped.',
      // A card labels each argument by its title, else its description (never the raw name).
      inputSchema: {
        orderId: z
          .string()
          .regex(/^\d+$/)
          .meta({ title: '订单号', description: 'The number of the order to cancel' }),
        reason: z.string().min(1).max(200).optional().describe('取消原因'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async (args, extra) => {
      called('cancel_order', args, extra._meta);
      const order = book.orders.get(args.orderId);
      if (order === undefined)
        return { isError: true, content: [{ type: 'text', text: `order ${args.orderId} not found` }] };
      if (order.status === 'shipped')
        return { isError: true, content: [{ type: 'text', text: `order ${args.orderId} has shipped` }] };
      order.status = 'cancelled';
      journal({ event: 'cancelled', orderId: order.orderId, userId: extra._meta?.['runstream/userId'] });
      return { content: text(order), structuredContent: { ...order } };
    },
  );

  server.registerTool(
    'slow_export',
    {
      title: 'Export all orders',
      description: 'Export every order as CSV. Takes a long time.',
      annotations: { readOnlyHint: true },
    },
    async (extra) => {
      called('slow_export', {}, extra._meta);
      await new Promise<void>((resolve) => {
        const limit = setTimeout(resolve, SLOW_EXPORT_LIMIT_MS);
        extra.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(limit);
            journal({ event: 'aborted', tool: 'slow_export', reason: String(extra.signal.reason) });
            resolve();
          },
          { once: true },
        );
      });
      return { content: [{ type: 'text', text: 'orderId,item,status' }] };
    },
  );
  return server;
}
