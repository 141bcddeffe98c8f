import { PRODUCT_FAMILIES, type ProductFamily } from './intent.ts';
import type { EvidenceHit } from './tool-facts.ts';

export interface HitSelection {
  /** The products the question is about; hits about other products are left out. */
  families: readonly ProductFamily[];
  /** Keep only hits whose text matches. */
  mustMatch?: RegExp;
  max: number;
}

/**
 * The hits worth quoting, in the retriever's order: no clause about another product (a size
 * question about X2 does not need the jacket's size chart), none that repeats another, at most `max`.
 * When the question names no product, general clauses are preferred to product-specific ones.
 */
export function selectHits(hits: readonly EvidenceHit[], selection: HitSelection): EvidenceHit[] {
  const about = (hit: EvidenceHit) =>
    PRODUCT_FAMILIES.filter((family) => family.inKnowledge.test(`${hit.section} ${hit.text}`));
  let kept = hits.filter((hit) => selection.mustMatch === undefined || selection.mustMatch.test(hit.text));
  if (selection.families.length > 0) {
    kept = kept.filter((hit) => about(hit).every((family) => selection.families.includes(family)));
  } else {
    const general = kept.filter((hit) => about(hit).length === 0);
    if (general.length > 0) kept = general;
  }
  const seen = new Set<string>();
  return kept
    .filter((hit) => {
      if (seen.has(hit.text)) return false;
      seen.add(hit.text);
      return true;
    })
    .slice(0, selection.max);
}

/** `- 已发货订单不能直接取消，…。（来源：knowledge/policies/order-changes.md#L21）` */
export function evidenceLine(hit: EvidenceHit): string {
  const text = hit.text.trim().replace(/[；;，,、：:]$/, '。');
  const ended = /[。！？.!?）)」]$/.test(text) ? text : `${text}。`;
  return hit.citation ? `- ${ended}（来源：${hit.citation}）` : `- ${ended}`;
}
