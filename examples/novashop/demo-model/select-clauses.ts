import { PRODUCT_FAMILIES, type ProductFamily } from './intent.ts';
import { answerScore, type TermProfile, termProfile } from './question-terms.ts';
import { isSameFact } from './same-fact.ts';
import type { EvidenceHit } from './tool-facts.ts';

/** A clause worth quoting, with every passage that states it. */
export interface QuotedClause {
  text: string;
  /** The passage it is quoted from first, then those of the same fact said elsewhere. */
  citations: string[];
  score: number;
}

export interface ClauseSelection {
  /** What the clauses should answer: the question, or the query a search was made with. */
  question: TermProfile;
  /** The products the question is about; clauses about other products are left out. */
  families: readonly ProductFamily[];
  /** Keep only clauses whose text matches. */
  mustMatch?: RegExp;
  /** At most this many clauses. */
  max: number;
  /** Clauses already quoted in this answer: a clause stating the same fact is not quoted again. */
  quoted?: readonly QuotedClause[];
}

interface Candidate {
  text: string;
  citation: string;
  score: number;
  hitRank: number;
  /** The hit's own matched clause, rather than a neighbour from its passage. */
  matched: boolean;
  position: number;
}

/**
 * The clauses that answer the question, the best first. Each hit brings its passage (`context`,
 * else its clause); every clause of it is scored by the terms and quantities it shares with the
 * question (`answerScore`), so 「七天无理由吗？」 leads with 签收后 7 个自然日内支持无理由退货 even when
 * the retriever ranked the exceptions list first. Ties go to the retriever's order, then to the
 * matched clause, then to the passage's order. A neighbour that shares nothing with the question is
 * not quoted; the matched clause is, since the retriever found it for a reason. Clauses stating the
 * same fact (`isSameFact`) are quoted once: the more complete one, with both citations.
 */
export function selectClauses(hits: readonly EvidenceHit[], selection: ClauseSelection): QuotedClause[] {
  const about = hitsAbout(hits, selection.families);
  const candidates = candidatesOf(about.hits, selection, about.generalOnly).sort(
    (left, right) =>
      right.score - left.score ||
      left.hitRank - right.hitRank ||
      Number(right.matched) - Number(left.matched) ||
      left.position - right.position,
  );
  const earlier = selection.quoted ?? [];
  const kept: QuotedClause[] = [];
  for (const candidate of candidates) {
    if (earlier.some((clause) => isSameFact(clause.text, candidate.text))) continue;
    const same = kept.find((clause) => isSameFact(clause.text, candidate.text));
    if (same === undefined) {
      if (kept.length < selection.max) {
        kept.push({ text: candidate.text, citations: [candidate.citation], score: candidate.score });
      }
      continue;
    }
    // The same fact again: keep the more complete wording, in the place of the better-ranked one.
    // Its passage becomes the first citation, so the line is cited where its words are written.
    if (completeness(candidate.text) > completeness(same.text)) {
      same.text = candidate.text;
      same.citations = [
        candidate.citation,
        ...same.citations.filter((citation) => citation !== candidate.citation),
      ];
    } else if (!same.citations.includes(candidate.citation)) {
      same.citations.push(candidate.citation);
    }
  }
  return kept;
}

/**
 * No hit about another product (a size question about X2 does not need the jacket's size chart).
 * When the question names no product, general hits are preferred to product-specific ones.
 */
function hitsAbout(
  hits: readonly EvidenceHit[],
  families: readonly ProductFamily[],
): { hits: EvidenceHit[]; generalOnly: boolean } {
  const products = (hit: EvidenceHit) => productsIn(`${hit.section} ${hit.text}`);
  if (families.length > 0) {
    return {
      hits: hits.filter((hit) => products(hit).every((family) => families.includes(family))),
      generalOnly: false,
    };
  }
  const general = hits.filter((hit) => products(hit).length === 0);
  return general.length > 0 ? { hits: general, generalOnly: true } : { hits: [...hits], generalOnly: false };
}

function candidatesOf(
  hits: readonly EvidenceHit[],
  selection: ClauseSelection,
  generalOnly: boolean,
): Candidate[] {
  const candidates: Candidate[] = [];
  hits.forEach((hit, hitRank) => {
    const matchedText = quotable(hit.text);
    const passage = citedClausesOf(hit);
    if (!passage.some((clause) => clause.text === matchedText))
      passage.unshift({ text: matchedText, citation: hit.citation });
    passage.forEach(({ text, citation }, position) => {
      if (text.length < 2) return;
      if (selection.mustMatch !== undefined && !selection.mustMatch.test(text)) return;
      // A neighbour about a product the question does not name is someone else's rule.
      const products = productsIn(text);
      if (
        products.some((family) => !selection.families.includes(family)) &&
        (generalOnly || selection.families.length > 0)
      ) {
        return;
      }
      const matched = text === matchedText;
      const score = answerScore(selection.question, termProfile(text));
      if (score === 0 && !matched) return;
      // The matched clause is cited at the hit's line; a neighbour at its own line of the passage.
      candidates.push({
        text,
        citation: matched ? hit.citation : citation,
        score,
        hitRank,
        matched,
        position,
      });
    });
  });
  return candidates;
}

function productsIn(text: string): ProductFamily[] {
  return PRODUCT_FAMILIES.filter((family) => family.inKnowledge.test(text));
}

/**
 * The hit's passage as clauses, each with the citation of the line it is on (`contextCitations`, one
 * per line of the context); the hit's own citation where the search gave no lines.
 */
function citedClausesOf(hit: EvidenceHit): { text: string; citation: string }[] {
  const lines = (hit.context ?? hit.text).split('\n');
  const citations = hit.contextCitations?.length === lines.length ? hit.contextCitations : undefined;
  return lines.flatMap((line, index) =>
    clausesOf(line).map((text) => ({ text, citation: citations?.[index] ?? hit.citation })),
  );
}

/** A passage cut into the sentences and clauses it is made of (。！？； and line breaks). */
export function clausesOf(passage: string): string[] {
  return passage
    .split(/\n|…|(?<=[。！？；;!?])/)
    .map(quotable)
    .filter((clause) => clause.length > 0);
}

/** A clause as the answer quotes it: trimmed, no list marker, ending in a full stop. */
export function quotable(clause: string): string {
  const text = clause
    .trim()
    .replace(/^[-*•]\s*/, '')
    .replace(/[；;，,、：:]$/, '。');
  if (text.length === 0) return '';
  return /[。！？.!?）)」]$/.test(text) ? text : `${text}。`;
}

/** More numbers, then more text: 满 99 元包邮，不满收 8 元 says more than 满 99 元免运费. */
function completeness(text: string): number {
  return (text.match(/\d+/g)?.length ?? 0) * 1000 + text.length;
}
