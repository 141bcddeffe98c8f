import { type Agent, type AgentFolderContext, defineAgent } from 'runstream';
import { NovaShopDemoModel } from './demo-model/novashop-demo-model.ts';
import { openOrders } from './orders/open-orders.ts';
import { createNovaShopTools } from './shop-tools/create-novashop-tools.ts';

/**
 * NovaShop: the folder gives the prompt, knowledge, synonyms and skills (agent.json,
 * instructions.md, knowledge/, synonyms.txt, skills/); this file adds what needs code: the order
 * tools over NovaShop's own tables, and the offline demo model (used until a real model is
 * configured: `RUNSTREAM_MODEL` with a provider's key, docs/models.md).
 *
 * `RUNSTREAM_DEMO_DELAY_MS` paces the demo model's parts (default 30 ms, so streaming is visible);
 * `RUNSTREAM_DEMO_TOOL_DELAY_MS` adds latency around each tool call (default 0).
 */
export default async function novaShop(folder: Agent, context: AgentFolderContext): Promise<Agent> {
  const { orders, close } = await openOrders(context.env, context.databasePath);
  return defineAgent({
    ...folder,
    tools: createNovaShopTools({ orders, delayMs: Number(context.env.RUNSTREAM_DEMO_TOOL_DELAY_MS ?? 0) }),
    offlineModel: new NovaShopDemoModel({ delayMs: Number(context.env.RUNSTREAM_DEMO_DELAY_MS ?? 30) }),
    onClose: close,
  });
}
