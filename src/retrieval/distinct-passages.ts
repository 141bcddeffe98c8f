import type { PassageIndex } from './passage-index.ts';
import type { FusedHit } from './reciprocal-rank-fusion.ts';

/**
 * Another clause of a hit's passage counts as matched (kept in its context first, and highlighted)
 * when it is among this many fused hits per result slot. Ranks, not scores: fused scores are
 * reciprocal ranks, too flat to draw a line through.
 */
const SIBLING_DEPTH_PER_SLOT = 2;

/**
 * The first `topK` passages in fused order, each with its best clause and the other clauses of it
 * among the first `slots × SIBLING_DEPTH_PER_SLOT` fused hits. A passage fills one slot, however many
 * of its clauses matched; the next-best passage takes the next. `slots` is the number of passages the
 * caller returns, `topK` by default; a reranker's candidates are more passages than that, and reading
 * more of them must not change which clauses each passage shows as matched.
 */
export function distinctPassages(
  passages: PassageIndex,
  ordered: readonly FusedHit[],
  topK: number,
  slots = topK,
): { best: FusedHit; matched: number[] }[] {
  const picked: { best: FusedHit; matched: number[] }[] = [];
  const slotOf = new Map<number, { best: FusedHit; matched: number[] }>();
  const siblingDepth = slots * SIBLING_DEPTH_PER_SLOT;
  for (const [rank, hit] of ordered.entries()) {
    const passage = passages.passageOf(hit.index);
    const slot = slotOf.get(passage);
    if (slot !== undefined) {
      if (rank < siblingDepth) slot.matched.push(hit.index);
      continue;
    }
    if (picked.length === topK) {
      if (rank >= siblingDepth) break;
      continue;
    }
    const entry = { best: hit, matched: [hit.index] };
    slotOf.set(passage, entry);
    picked.push(entry);
  }
  return picked;
}
