/**
 * The Chinese words of NovaShop's knowledge that an English question is about. The knowledge is
 * Chinese, so the demo searches with these words next to the shopper's own (the retriever may learn
 * English later; the Chinese words work today), and ranks the Chinese clauses against them.
 * A small table: the demo's own scenarios, not a translator.
 */
const GLOSSARY: readonly { english: RegExp; chinese: string }[] = [
  { english: /\bfree shipping\b|\bfree delivery\b/, chinese: '包邮' },
  {
    english: /\bshipping (?:cost|fee|charge)s?\b|\bpostage\b|\bfreight\b|\bdelivery (?:fee|cost)s?\b/,
    chinese: '运费',
  },
  { english: /\b(?:no|any|without (?:a )?)reason\b|\bchange(?:d)? my mind\b/, chinese: '无理由' },
  { english: /\breturn(?:s|ed|ing)?\b|\bsend (?:it|them) back\b/, chinese: '退货' },
  { english: /\brefund(?:s|ed)?\b|\bmoney back\b/, chinese: '退款' },
  { english: /\bexchange(?:s|d)?\b|\bswap\b/, chinese: '换货' },
  { english: /\bcancel(?:led|ling|lation)?\b/, chinese: '取消' },
  { english: /\bship(?:s|ped|ping)?\b|\bdispatch(?:ed)?\b/, chinese: '发货' },
  {
    english: /\bdeliver(?:y|ed|ies)?\b|\barrive(?:s|d)?\b|\bhow long\b.*\b(?:take|get|come)\b/,
    chinese: '送达',
  },
  { english: /\bcouriers?\b|\bcarriers?\b|\bexpress\b/, chinese: '快递' },
  { english: /\btrack(?:ing)?\b/, chinese: '物流' },
  { english: /\bsizes?\b|\bsizing\b|\bfit(?:s)?\b/, chinese: '尺码' },
  // The knowledge says what to do about it: 偏窄 … 建议大一码.
  { english: /\b(?:too small|runs? small|tight)\b/, chinese: '偏小 大一码' },
  { english: /\b(?:too big|too large|runs? (?:big|large)|loose)\b/, chinese: '偏大' },
  { english: /\bshoes?\b|\bsneakers?\b|\btrainers?\b/, chinese: '鞋' },
  { english: /\bwatch(?:es)?\b/, chinese: '手表' },
  { english: /\bjackets?\b|\bcoats?\b/, chinese: '冲锋衣' },
  { english: /\bwarranty\b|\brepairs?\b/, chinese: '保修' },
  { english: /\bdefective\b|\bbroken\b|\bdamaged\b|\bfaulty\b|\bquality\b/, chinese: '质量问题' },
  { english: /\binvoices?\b|\breceipts?\b|\bfapiao\b/, chinese: '发票' },
  { english: /\border(?:s)?\b/, chinese: '订单' },
];

/** The Chinese key words of an English question, in the glossary's order, each once. */
export function chineseTermsOf(question: string): string[] {
  // Each phrase is read once, the longest first: free shipping is 包邮, not also 发货.
  let rest = question.toLowerCase();
  const terms: string[] = [];
  for (const entry of GLOSSARY) {
    if (!entry.english.test(rest)) continue;
    terms.push(entry.chinese);
    rest = rest.replace(new RegExp(entry.english.source, 'g'), ' ');
  }
  const lower = question.toLowerCase();
  // A quantity the shopper gave (7 days, 99 yuan) is searched for as the knowledge writes it.
  for (const match of lower.matchAll(/(\d+)\s*(days?|hours?|yuan|rmb)\b/g)) {
    const unit = match[2]?.startsWith('day') ? '天' : match[2]?.startsWith('hour') ? '小时' : '元';
    terms.push(`${match[1]} ${unit}`);
  }
  return [...new Set(terms)];
}
