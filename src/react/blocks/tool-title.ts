import type { Block, ToolBlock } from '../../protocol/index.ts';

/**
 * What a person reads for a tool call: the tool's own title (取消订单), else the title of the
 * confirmation card of the same call, else the machine name made readable (`cancel_order` →
 * "Cancel order"). The machine name itself belongs in the row's details.
 */
export function toolTitle(block: ToolBlock, cardTitle?: string): string {
  return block.title.trim() || cardTitle?.trim() || humaniseToolName(block.name);
}

/** `cancel_order`, `cancel-order`, `cancelOrder`, `shop.cancel_order` → "Cancel order" (the last one "Shop cancel order"). */
export function humaniseToolName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.:/-]+/)
    .filter((word) => word !== '')
    .map((word) => (/^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : word.toLowerCase()));
  const sentence = words.join(' ');
  return sentence === '' ? name : sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/** The confirmation cards' titles by the tool call they approve, for the tool rows of one message. */
export function cardTitlesOf(blocks: readonly Block[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const block of blocks) if (block.kind === 'confirm') titles.set(block.toolCallId, block.title);
  return titles;
}
