import { seededRandom } from '../src/retrieval/lanes/seeded-random.ts';

/**
 * Synthetic policy clauses in the shop's language, from templates and a seeded generator: the same
 * seed always writes the same corpus, so runs compare. Every clause carries an identifier, as real
 * product and policy pages do, so the exact lane has work too.
 */
const SUBJECTS = [
  'NovaTrail X2',
  '运动鞋',
  '冲锋衣',
  '智能手表',
  '双肩包',
  '羽绒服',
  '蓝牙耳机',
  '保温杯',
  '登山杖',
  '速干T恤',
];
const CONDITIONS = [
  '签收后 7 个自然日内',
  '付款后 24 小时内',
  '发货前',
  '已发货的订单',
  '待付款的订单',
  '因质量问题',
  '因个人原因',
  '活动期间',
  '预售商品在尾款支付后',
  '偏远地区',
];
const ACTIONS = [
  '可申请退货',
  '可以修改收货地址',
  '运费由买家承担',
  '运费由 NovaShop 承担',
  '退款将原路退回',
  '可申请价格保护',
  '支持开具电子发票',
  '可享受一年保修',
  '不支持无理由退货',
  '可以申请换货',
  '积分将在确认收货后到账',
  '优惠券不予退还',
];
const TAILS = [
  '，具体以订单页面为准。',
  '，请保留购买凭证。',
  '，客服会在 1 个工作日内处理。',
  '。',
  '，配件需齐全。',
  '，逾期不予受理。',
];
const COLORS = ['BLK', 'GRY', 'BLU', 'RED', 'WHT', 'GRN'];
const SIZES = ['S', 'M', 'L', 'XL', 'XXL'];

// Benchmarks need the same corpus every run: the HNSW graph's seeded generator (mulberry32).
export { seededRandom };

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

export function syntheticSku(random: () => number): string {
  const model = `X${1 + Math.floor(random() * 400)}`;
  return `NS-${model}-${pick(COLORS, random)}-${pick(SIZES, random)}`;
}

export function syntheticClause(random: () => number): string {
  return `${pick(SUBJECTS, random)}（${syntheticSku(random)}）${pick(CONDITIONS, random)}${pick(ACTIONS, random)}${pick(TAILS, random)}`;
}

/** Markdown files of `clausesPerFile` clauses under headings, `count` clauses in all. */
export function syntheticDocuments(
  count: number,
  clausesPerFile: number,
  seed = 42,
): { name: string; content: string }[] {
  const random = seededRandom(seed);
  const documents: { name: string; content: string }[] = [];
  for (let written = 0, file = 0; written < count; file += 1) {
    const lines = [`# 合成政策 ${file}`, ''];
    const inFile = Math.min(clausesPerFile, count - written);
    for (let clause = 0; clause < inFile; clause += 1) {
      if (clause % 10 === 0) lines.push('', `## 第 ${clause / 10 + 1} 节`, '');
      lines.push(`- ${syntheticClause(random)}`);
    }
    documents.push({ name: `policy-${String(file).padStart(5, '0')}.md`, content: `${lines.join('\n')}\n` });
    written += inFile;
  }
  return documents;
}

const QUESTIONS = [
  '这双鞋七天内能退吗',
  '已经发货了还能改地址吗',
  '降价了能补差价吗',
  '质量问题退货运费谁出',
  '手表坏了包修吗',
  '电子发票怎么开',
  '优惠券退款后还能用吗',
  '偏远地区多久发货',
  '积分什么时候到账',
  '预售商品能退吗',
];

/** Realistic questions: colloquial ones, and a third that quote an exact SKU. */
export function syntheticQueries(count: number, seed = 7): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, index) =>
    index % 3 === 0 ? `${syntheticSku(random)} ${pick(QUESTIONS, random)}` : pick(QUESTIONS, random),
  );
}
