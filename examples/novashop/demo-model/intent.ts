/**
 * How the offline demo model reads a shopper's message: plain keyword rules, Chinese and English,
 * tried in order, the first match wins. They are documented here and in `INTENT_RULES` (which the tests print and
 * check), so anyone can predict what the demo will do with a sentence.
 */

export type Intent = 'cancel' | 'return' | 'size' | 'status' | 'shipping' | 'unknown';

export interface IntentRule {
  intent: Exclude<Intent, 'unknown'>;
  pattern: RegExp;
  /** What the rule means, for people reading the docs. */
  meaning: string;
}

export const INTENT_RULES: readonly IntentRule[] = [
  {
    intent: 'cancel',
    pattern:
      /(帮我|给我|替我|请|麻烦|我要|我想|想要)[^，。？！?!,]{0,12}取消|把.{0,24}取消|取消(掉|吧|了吧|一下)|撤单|不想买了|\bcancel\b(?![^?]{0,40}\b(?:refund|policy|rules?)\b)/i,
    meaning:
      '请求取消：帮我/请/我要/我想 … 取消、把 … 取消、取消掉/取消吧/取消一下、撤单、不想买了；English: cancel (not a question about refunds or the policy)',
  },
  {
    intent: 'return',
    pattern:
      /退货|退款|退换|能退|可以退|退吗|退不退|无理由|换货|换码|换个|七天|7\s*天|\breturn(s|ed|ing)?\b|\brefund|\bexchange|\bmoney back\b|\b(7|seven)[- ]days?\b/i,
    meaning:
      '退货、退款、换货：退货/退款/退换/能退/可以退/退吗/无理由/换货/换码/七天；English: return, refund, exchange, money back, 7 days',
  },
  {
    intent: 'size',
    pattern:
      /尺码|码数|鞋码|哪个码|几码|什么码|选码|大一码|小一码|偏小|偏大|偏码|脚长|脚宽|胸围|合脚|挤脚|\bsizes?\b|\bsizing\b|\b(runs?|too) (small|big|large)\b|\bwhich size\b/i,
    meaning:
      '尺码：尺码/码数/哪个码/几码/偏小/偏大/偏码/大一码/脚长/胸围/挤脚；English: size, sizing, runs small/large, too small/big',
  },
  {
    intent: 'status',
    pattern:
      /(?<!\d)\d{5,12}(?!\d)|到哪|在哪|什么状态|啥状态|状态|进度|发货了吗|发货没|发了吗|发出了吗|物流信息|查.{0,4}订单|我的订单|\bwhere(?:'s| is| are)? my\b|\bmy (?:orders?|package|parcel)\b|\border status\b|\btrack (?:my|the)\b|\bhas (?:it|my order) (?:shipped|arrived)\b/i,
    meaning:
      '订单状态：消息里有订单号（5 位以上数字）、到哪/在哪、状态、进度、发货了吗、物流信息、查订单、我的订单；English: where is my …, my order/package, order status, track my …',
  },
  {
    intent: 'cancel',
    pattern: /不想要|不要了|\b(?:don't|do not|no longer) want\b/i,
    meaning:
      "「不想要了」而没问退货规则：按订单变更处理，由订单状态决定是取消还是退货；English: don't want / no longer want",
  },
  {
    intent: 'shipping',
    pattern:
      /发货|配送|运费|邮费|包邮|快递|物流|几天到|多久到|送达|顺丰|承运|\bship(?:s|ping|ped)?\b|\bdeliver(?:y|ed|ies)?\b|\bpostage\b|\bcouriers?\b|\bdispatch/i,
    meaning:
      '配送政策：发货/配送/运费/包邮/快递/物流/几天到/多久到/顺丰（问规则，不问某笔订单）；English: ship, shipping, delivery, postage, courier, dispatch',
  },
];

export function detectIntent(message: string): Intent {
  return INTENT_RULES.find((rule) => rule.pattern.test(message))?.intent ?? 'unknown';
}

/** An order number the shopper typed: 5 to 12 digits standing alone. */
export function orderNumberIn(message: string): string | undefined {
  return /(?<!\d)(\d{5,12})(?!\d)/.exec(message)?.[1];
}

export interface ProductFamily {
  /** How the demo names it in answers, e.g. 找到你的Apple Watch订单了. */
  label: string;
  /** What an order item's name contains, e.g. `Apple Watch` for Apple Watch Series 12. */
  itemName: string;
  /** How a shopper refers to it. */
  mentioned: RegExp;
  /** How a knowledge clause (its text or section) refers to it. */
  inKnowledge: RegExp;
}

export const PRODUCT_FAMILIES: readonly ProductFamily[] = [
  {
    label: 'Apple Watch',
    itemName: 'Apple Watch',
    mentioned: /apple\s*watch|手表|块表|\bwatch\b/i,
    inKnowledge: /Apple Watch|手表|表带|表壳/,
  },
  {
    label: 'NovaTrail X2',
    itemName: 'NovaTrail',
    mentioned: /novatrail|\bx2\b|跑鞋|鞋|\bshoes?\b|\bsneakers?\b|\btrainers?\b/i,
    inKnowledge: /NovaTrail|X2/,
  },
  {
    label: 'NovaPeak 冲锋衣',
    itemName: 'NovaPeak',
    mentioned: /novapeak|冲锋衣|外套|夹克|衣服|\bjackets?\b|\bcoats?\b/i,
    inKnowledge: /NovaPeak|冲锋衣/,
  },
];

/** The product families a message mentions, in catalogue order. */
export function familiesIn(message: string): ProductFamily[] {
  return PRODUCT_FAMILIES.filter((family) => family.mentioned.test(message));
}

/** The family of an order item's name, if it is one of NovaShop's. */
export function familyOfItem(itemName: string): ProductFamily | undefined {
  return PRODUCT_FAMILIES.find((family) => itemName.includes(family.itemName));
}

/**
 * The orders that hold a product the message names (表 → Apple Watch, 鞋 → NovaTrail X2 …); all of
 * them when it names none.
 */
export function ordersMentioned<Order extends { items: readonly { name: string }[] }>(
  orders: readonly Order[],
  message: string,
): Order[] {
  const families = familiesIn(message);
  if (families.length === 0) return [...orders];
  return orders.filter((order) =>
    order.items.some((item) => {
      const family = familyOfItem(item.name);
      return family !== undefined && families.includes(family);
    }),
  );
}

/** 「还没发货的话」, "if it hasn't shipped": the shopper wants the cancellation only if the order has not shipped. */
export function onlyIfNotShipped(message: string): boolean {
  return /(还没|没有?|未)(发货|发出|寄出)|\b(?:hasn't|has not|not yet|isn't|is not|haven't) (?:been )?(?:shipped|sent)|\bbefore it ships\b/i.test(
    message,
  );
}
