import { normaliseText } from './question-terms.ts';

/**
 * Whether two clauses state the same fact, so the answer quotes it once: 「普通地区订单实付满 99 元免运费。」
 * (the policy) and 「普通地区实付满 99 元就包邮，不满 99 元收 8 元运费。」 (the FAQ) do.
 *
 * Character bigrams over the normalised text (punctuation and spaces out, 7 个自然日 = 七天), compared
 * by containment: the share of the shorter clause's bigrams that the longer one has. Containment,
 * not Jaccard, because the FAQ restates a policy clause and adds to it; Jaccard falls with every
 * added word (0.38 for the pair above), containment does not (0.64).
 *
 * The threshold, 0.6, is from the knowledge: same-fact pairs restated in other words keep well over
 * half of their bigrams (0.64 for the 99 元 pair, 1 for a clause quoted twice); clauses that only
 * share a frame stay under it (「NovaTrail X2 签收后 7 个自然日内可申请退货」 and
 * 「除蓝色清仓款外，支持签收后 7 个自然日内无理由退货」 share 签收后 7 天内 … 退货: 0.32). It errs on
 * the side of quoting twice: a wrong merge loses a fact, a missed one only repeats it (the FAQ's
 * 「一般发货后 2 至 4 天到」 and the policy's 「通常 2 至 4 天送达」 share 0.57 and stay apart).
 * Markers decide too: a clause with a number, order status, region or product the other lacks is
 * another fact (签收后 7 天 vs 签收后 15 天 share nearly every bigram), whatever the overlap.
 */
export const SAME_FACT_CONTAINMENT = 0.6;

export function isSameFact(left: string, right: string): boolean {
  const leftNormal = comparable(left);
  const rightNormal = comparable(right);
  if (leftNormal === rightNormal) return true;
  const [shorter, longer] =
    leftNormal.length <= rightNormal.length ? [leftNormal, rightNormal] : [rightNormal, leftNormal];
  const longerMarkers = new Set(markersIn(longer));
  if (!markersIn(shorter).every((marker) => longerMarkers.has(marker))) return false;
  return containment(bigramsOf(shorter), bigramsOf(longer)) >= SAME_FACT_CONTAINMENT;
}

/** The share of `shorter`'s bigrams that `longer` has (0 when `shorter` has none). */
export function containment(shorter: ReadonlySet<string>, longer: ReadonlySet<string>): number {
  if (shorter.size === 0) return 0;
  let shared = 0;
  for (const bigram of shorter) if (longer.has(bigram)) shared += 1;
  return shared / shorter.size;
}

export function bigramsOf(text: string): Set<string> {
  const characters = Array.from(text);
  const bigrams = new Set<string>();
  for (let index = 0; index + 1 < characters.length; index += 1) {
    bigrams.add(`${characters[index]}${characters[index + 1]}`);
  }
  return bigrams;
}

function comparable(text: string): string {
  return normaliseText(text).replace(/[\p{P}\p{S}]/gu, '');
}

/**
 * What makes a clause another fact even when most of its words are shared: its numbers, and the
 * order status, region or cause it is about (已发货订单不能直接取消，可以申请物流拦截 and
 * 已签收订单不能直接取消，可以申请退货 share 0.69 of their bigrams).
 */
const MARKERS =
  /\d+|待付款|已支付待发货|已发货|已签收|已完成|已取消|普通地区|偏远地区|质量问题|个人原因|novatrail|x2|applewatch|novapeak/g;

function markersIn(text: string): string[] {
  return text.match(MARKERS) ?? [];
}
