import type { StoredChunk } from './knowledge-store.ts';
import { extractIdentifiers, type LaneHit, normalizeIdentifierText } from './lanes/index.ts';
import type { LoadedIndex } from './load-knowledge-index.ts';
import { type FusedHit, type LaneName, reciprocalRankFusion } from './reciprocal-rank-fusion.ts';
import type { TextAnalyzer } from './text/index.ts';

export interface IdentifierScopeInput {
  /** The search's fusion of every lane, over the whole knowledge base. */
  fused: readonly FusedHit[];
  /** The exact lane's hits: the clauses that hold an identifier asked for. */
  exact: readonly LaneHit[];
  identifiers: readonly string[];
  /** The question as the lexical lanes take it (question form stripped). */
  question: string;
  depth: number;
  allowed: ((chunk: number) => boolean) | undefined;
  weights: Partial<Record<LaneName, number>>;
  rrfK: number;
}

/**
 * The search's order when the question quotes an identifier the knowledge holds: the lexical lanes run
 * again on the rest of the question (the identifier taken out: its n-grams would make every clause
 * that repeats it look like the best answer) over the documents that hold it, fused with the exact
 * lane; then `scopedByIdentifier` puts that scope first.
 */
export function orderByIdentifierScope(
  index: LoadedIndex,
  analyzer: TextAnalyzer,
  input: IdentifierScopeInput,
): FusedHit[] {
  const scope = new Set(input.exact.map((hit) => (index.chunks[hit.index] as StoredChunk).docId));
  const inScope = (position: number) =>
    (input.allowed === undefined || input.allowed(position)) &&
    scope.has((index.chunks[position] as StoredChunk).docId);
  let rest = normalizeIdentifierText(input.question);
  for (const identifier of input.identifiers) rest = rest.replaceAll(identifier, ' ');
  const restQuery = index.homophones.correct(analyzer.canonicalText(rest));
  const scoped = reciprocalRankFusion(
    {
      exact: input.exact,
      ngram: index.ngrams.cosine(analyzer.characterNgrams(restQuery), input.depth, inScope),
      bm25: index.words.bm25(analyzer.analyze(restQuery), input.depth, inScope),
    },
    input.weights,
    input.rrfK,
  );
  return scopedByIdentifier(index, scoped, input.fused, input.identifiers);
}

/**
 * An identifier names what the question is about more often than it holds the answer: 「FM-SEA-0508
 * 解冻后还能再冷冻吗」 is answered on that product's page by a clause that does not repeat the SKU. So
 * the clauses that hold an identifier asked for, and the clauses of the same documents that hold no
 * other identifier, come first, in fused order; then the rest. A clause naming another identifier (a
 * near miss: NS-X2-BLK-L for NS-X2-BLK-M) never outranks one in scope.
 */
function scopedByIdentifier(
  index: LoadedIndex,
  scoped: readonly FusedHit[],
  fused: readonly FusedHit[],
  asked: readonly string[],
): FusedHit[] {
  const wanted = new Set(asked);
  const inScope = (hit: FusedHit) =>
    hit.lanes.exact !== undefined ||
    extractIdentifiers((index.chunks[hit.index] as StoredChunk).indexText).every((identifier) =>
      wanted.has(identifier),
    );
  const first = scoped.filter(inScope);
  const taken = new Set(first.map((hit) => hit.index));
  return [...first, ...fused.filter((hit) => !taken.has(hit.index))];
}
