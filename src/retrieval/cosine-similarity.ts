import { RetrievalError } from './retrieval-error.ts';

/** One ranked candidate: its position in the input and its similarity to the query. */
export interface RankedIndex {
  index: number;
  score: number;
}

/**
 * Cosine similarity of two vectors: 1 for the same direction, 0 for orthogonal, -1 for opposite.
 *
 * Vectors of different length and zero (or empty) vectors are refused with a `RetrievalError`
 * instead of producing a number: different lengths mean the two texts were embedded by different
 * models or settings, and a zero vector has no direction. Either is a configuration error, and a
 * made-up score would hide it inside an otherwise plausible ranking.
 */
export function cosineSimilarity(left: ArrayLike<number>, right: ArrayLike<number>): number {
  assertSameLength(left, right, 'left', 'right');
  let dot = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  for (let position = 0; position < left.length; position++) {
    const leftValue = left[position] as number;
    const rightValue = right[position] as number;
    dot += leftValue * rightValue;
    leftSquares += leftValue * leftValue;
    rightSquares += rightValue * rightValue;
  }
  assertHasDirection(leftSquares, left.length, 'the left vector');
  assertHasDirection(rightSquares, right.length, 'the right vector');
  return clampToUnitRange(dot / (Math.sqrt(leftSquares) * Math.sqrt(rightSquares)));
}

/**
 * The dot product of two vectors of the same length. For vectors already scaled to unit length (see
 * `normalizeVector`) it equals their cosine similarity without recomputing both lengths per pair,
 * which is why the search keeps its stored vectors normalised.
 */
export function dotProduct(left: ArrayLike<number>, right: ArrayLike<number>): number {
  assertSameLength(left, right, 'left', 'right');
  let dot = 0;
  for (let position = 0; position < left.length; position++) {
    dot += (left[position] as number) * (right[position] as number);
  }
  return dot;
}

/** A unit-length copy of `vector`. Refuses empty and zero vectors: they have no direction to keep. */
export function normalizeVector(vector: ArrayLike<number>): Float32Array {
  const squares = sumOfSquares(vector);
  assertHasDirection(squares, vector.length, 'the vector');
  const length = Math.sqrt(squares);
  const normalized = new Float32Array(vector.length);
  for (let position = 0; position < vector.length; position++) {
    normalized[position] = (vector[position] as number) / length;
  }
  return normalized;
}

/**
 * The `topK` vectors most similar to `query` by cosine, best first, as `{ index, score }` where
 * `index` is the position in `vectors`. Equal scores keep input order (the lower index first), so
 * the same input always gives the same ranking; that order says nothing about which tied candidate
 * is better. Any vector of another length or with no direction is refused, naming its index.
 */
export function rankByCosine(
  query: ArrayLike<number>,
  vectors: readonly ArrayLike<number>[],
  topK: number,
): RankedIndex[] {
  assertValidTopK(topK);
  // The query's length is computed once instead of once per candidate, in double precision so that
  // candidates with mathematically equal scores still tie.
  const querySquares = sumOfSquares(query);
  assertHasDirection(querySquares, query.length, 'the query');
  const queryLength = Math.sqrt(querySquares);
  return selectTopK(vectors.length, topK, (index) => {
    const vector = vectors[index] as ArrayLike<number>;
    assertSameLength(query, vector, 'the query', `candidate ${index}`);
    let dot = 0;
    let squares = 0;
    for (let position = 0; position < vector.length; position++) {
      const value = vector[position] as number;
      dot += (query[position] as number) * value;
      squares += value * value;
    }
    assertHasDirection(squares, vector.length, `candidate ${index}`);
    return clampToUnitRange(dot / (queryLength * Math.sqrt(squares)));
  });
}

/**
 * Like `rankByCosine` for a query and vectors that are all unit length already (see
 * `normalizeVector`): the score is the plain dot product, the fast path of the vector lane.
 * Lengths are still checked; directions are the caller's promise.
 */
export function rankByDotProduct(
  unitQuery: ArrayLike<number>,
  unitVectors: readonly ArrayLike<number>[],
  topK: number,
): RankedIndex[] {
  assertValidTopK(topK);
  return selectTopK(unitVectors.length, topK, (index) => {
    const vector = unitVectors[index] as ArrayLike<number>;
    assertSameLength(unitQuery, vector, 'the query', `candidate ${index}`);
    return dotProduct(unitQuery, vector);
  });
}

/** Whether `a` ranks before `b`: the higher score, and on a tie the lower index. */
function ranksBefore(a: RankedIndex, b: RankedIndex): boolean {
  return a.score > b.score || (a.score === b.score && a.index < b.index);
}

/** Above this top-K, inserting into a sorted list costs more than sorting everything once. */
const INSERTION_TOP_K_LIMIT = 64;

/**
 * Scores `count` candidates and keeps the best `topK`. For the usual small top-K over many
 * candidates, a bounded insertion list instead of sorting everything: most candidates are rejected
 * by one comparison with the current last place.
 */
function selectTopK(count: number, topK: number, scoreAt: (index: number) => number): RankedIndex[] {
  if (topK > INSERTION_TOP_K_LIMIT) {
    const all: RankedIndex[] = [];
    for (let index = 0; index < count; index++) all.push({ index, score: scoreAt(index) });
    // The explicit index tie-break keeps ties in input order whatever the sort algorithm.
    all.sort((a, b) => (a.score === b.score ? a.index - b.index : b.score - a.score));
    return all.slice(0, topK);
  }
  const kept: RankedIndex[] = [];
  for (let index = 0; index < count; index++) {
    const candidate = { index, score: scoreAt(index) };
    const last = kept[kept.length - 1];
    if (kept.length === topK && last !== undefined && !ranksBefore(candidate, last)) continue;
    let insertAt = kept.length;
    while (insertAt > 0 && ranksBefore(candidate, kept[insertAt - 1] as RankedIndex)) insertAt--;
    kept.splice(insertAt, 0, candidate);
    if (kept.length > topK) kept.pop();
  }
  return kept;
}

function sumOfSquares(vector: ArrayLike<number>): number {
  let squares = 0;
  for (let position = 0; position < vector.length; position++) {
    const value = vector[position] as number;
    squares += value * value;
  }
  return squares;
}

function assertValidTopK(topK: number): void {
  if (!Number.isInteger(topK) || topK <= 0) {
    throw new RangeError(`topK must be a positive integer, got ${topK}`);
  }
}

function assertSameLength(
  left: ArrayLike<number>,
  right: ArrayLike<number>,
  leftName: string,
  rightName: string,
): void {
  if (left.length !== right.length) {
    throw new RetrievalError(
      'dimension_mismatch',
      `cannot compare vectors of different lengths: ${leftName} has ${left.length} dimensions, ` +
        `${rightName} has ${right.length}; were they embedded by the same model and settings?`,
    );
  }
}

function assertHasDirection(sumOfSquares: number, length: number, name: string): void {
  if (length === 0) {
    throw new RetrievalError('zero_vector', `${name} is empty: an empty vector has no direction`);
  }
  if (sumOfSquares === 0) {
    throw new RetrievalError('zero_vector', `${name} is a zero vector: it has no direction to compare`);
  }
}

/** Rounding can push a cosine a hair past ±1; scores outside [-1, 1] would only confuse thresholds. */
function clampToUnitRange(score: number): number {
  return Math.min(1, Math.max(-1, score));
}
