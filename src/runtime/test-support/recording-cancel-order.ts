import { z } from 'zod';
import type { Tool } from '../tools/tool.ts';

/**
 * A write tool for runtime tests: `cancel_order` with a confirmation card, which records the order
 * ids it cancelled in `executed` (so a test can say a write ran once, or never). Clear `executed`
 * between tests (`executed.length = 0`).
 */
export function recordingCancelOrder(): { tool: Tool<{ orderId: string }, unknown>; executed: string[] } {
  const executed: string[] = [];
  const tool: Tool<{ orderId: string }, unknown> = {
    name: 'cancel_order',
    title: '取消订单',
    description: 'Cancel an unshipped order.',
    parameters: z.object({ orderId: z.string() }),
    effect: 'write',
    async confirm(args) {
      return { title: '取消订单', description: `订单 ${args.orderId}`, details: [] };
    },
    async execute(args) {
      executed.push(args.orderId);
      return { orderId: args.orderId, status: '已取消' };
    },
  };
  return { tool, executed };
}
