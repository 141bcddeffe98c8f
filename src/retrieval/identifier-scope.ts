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

/** The search's order, the hits in the identifier's scope first: `ordered.slice(0, inScope)`. */
export interface ScopedOrder {
  ordered: FusedHit[];
  inScope: number;
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
): ScopedOrder {
  const scope = identifierScope(index, input.exact, input.identifiers);
  const inScope = (position: number) =>
    (input.allowed === undefined || input.allowed(position)) &&
    scope.has((index.chunks[position] as StoredChunk).docId);
  let rest = normalizeIdentifierText(input.question);
  for (const identifier of input.identifiers) rest = rest.replaceAll(identifier, ' ');
  const restQuery = index.homophones.correct(analyzer.canonicalText(rest));
  const restWords = analyzer.analyze(restQuery);
  const scoped = reciprocalRankFusion(
    {
      // Where an identifier names the document, the clauses repeating it say what the document is
      // (the SKU line, 「编号 FM-POL-RTN-01」); the rest of the question, when it has words, says
      // which clause answers.
      exact: input.exact.filter(
        (hit) =>
          inScope(hit.index) && (restWords.length === 0 || !namesItsDocument(index, hit, input.identifiers)),
      ),
      ngram: index.ngrams.cosine(analyzer.characterNgrams(restQuery), input.depth, inScope),
      bm25: index.words.bm25(restWords, input.depth, inScope),
    },
    input.weights,
    // Rank fusion alone: the rest of the question is a few words (「多小的小猫不能用」), and how far
    // ahead their best clause scores says little (measured: the score share costs PetPal's exact_id).
    { k: input.rrfK },
  );
  return scopedByIdentifier(index, scoped, input.fused, input.identifiers);
}

/**
 * An identifier names what the question is about more often than it holds the answer: 「FM-SEA-0508
 * 解冻后还能再冷冻吗」 is answered on that product's page by a clause that does not repeat the SKU. So
 * the clauses that hold an identifier asked for, and the clauses of the same documents that name no
 * rival of it (`isRival`), come first, in fused order; then the rest. A clause naming a near miss
 * (NS-X2-BLK-L for NS-X2-BLK-M) never outranks one in scope; one citing a policy code still can.
 */
function scopedByIdentifier(
  index: LoadedIndex,
  scoped: readonly FusedHit[],
  fused: readonly FusedHit[],
  asked: readonly string[],
): ScopedOrder {
  const inScope = (hit: FusedHit) =>
    hit.lanes.exact !== undefined ||
    !extractIdentifiers((index.chunks[hit.index] as StoredChunk).indexText).some(
      // A code the question asks for is never a rival, even of another it asks for (FM-CPN-NEW20 and
      // FM-CPN-SEA15 in one question).
      (identifier) => !asked.includes(identifier) && asked.some((wanted) => isRival(identifier, wanted)),
    );
  const first = scoped.filter(inScope);
  const taken = new Set(first.map((hit) => hit.index));
  return { ordered: [...first, ...fused.filter((hit) => !taken.has(hit.index))], inScope: first.length };
}

/**
 * The documents a question quoting identifiers is about. An identifier in a document's title or file
 * name names it (「厄瓜多尔白虾 FM-SEA-0508」, 「退货规则（FM-POL-RTN-01）」): the question is about that
 * document, and the others that hold the identifier only refer to it (「质量问题按 FM-POL-AFS-01
 * 处理」). An identifier that names no document scopes to every document that holds it. Which
 * documents an identifier names is looked up in the whole index, not among the exact lane's hits,
 * which stop at the search's depth.
 */
function identifierScope(
  index: LoadedIndex,
  exact: readonly LaneHit[],
  asked: readonly string[],
): Set<string> {
  const holders = new Map<string, Set<string>>();
  for (const hit of exact) {
    const chunk = index.chunks[hit.index] as StoredChunk;
    for (const identifier of extractIdentifiers(chunk.indexText)) {
      if (!asked.includes(identifier)) continue;
      const docs = holders.get(identifier) ?? new Set<string>();
      docs.add(chunk.docId);
      holders.set(identifier, docs);
    }
  }
  const scope = new Set<string>();
  for (const identifier of asked) {
    for (const docId of index.namedBy.get(identifier) ?? holders.get(identifier) ?? []) scope.add(docId);
  }
  return scope;
}

/** Whether every identifier asked for that the clause holds names the clause's document. */
function namesItsDocument(index: LoadedIndex, hit: LaneHit, asked: readonly string[]): boolean {
  const chunk = index.chunks[hit.index] as StoredChunk;
  const held = extractIdentifiers(chunk.indexText).filter((identifier) => asked.includes(identifier));
  return (
    held.length > 0 && held.every((identifier) => index.namedBy.get(identifier)?.has(chunk.docId) === true)
  );
}

/**
 * Whether `other`, held by a clause, names another thing of the kind `asked` names: a near miss,
 * not a reference. NS-X2-BLK-L and NS-X2-WHT-M are rivals of NS-X2-BLK-M (the same line, another
 * item), as FM-CPN-NEW20 is of FM-CPN-SEA15. A variant of the item asked about (PP-LT-0207-O for
 * PP-LT-0207) or the item a variant belongs to is not, nor is a code of another kind that the clause
 * cites (PP-POL-DLV-01 on the page of PP-LT-0207: 「整箱超过 10kg，会按 PP-POL-DLV-01 收取重货附加费」
 * answers a question about PP-LT-0207). Codes share their first group (the shop's prefix) with any
 * other of the shop; a rival shares one more, or, for a code of two groups (HL-1001), the first.
 * A code without groups (an order number) and any other code are rivals, since nothing tells their
 * kinds apart.
 */
export function isRival(other: string, asked: string): boolean {
  if (other === asked || other.startsWith(`${asked}-`) || asked.startsWith(`${other}-`)) return false;
  const otherGroups = other.split('-');
  const askedGroups = asked.split('-');
  if (otherGroups.length < 2 || askedGroups.length < 2) return true;
  let shared = 0;
  const comparable = Math.min(otherGroups.length, askedGroups.length);
  while (shared < comparable && otherGroups[shared] === askedGroups[shared]) shared += 1;
  return shared >= Math.min(2, askedGroups.length - 1);
}
