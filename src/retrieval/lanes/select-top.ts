/** One ranked entry of a lane: the chunk's position in the index and its lane score. */
export interface LaneHit {
  index: number;
  score: number;
}

/**
 * The best `limit` candidates by score, best first; equal scores keep index order (insertion order),
 * so the same input always ranks the same. A bounded heap: the lanes score tens of thousands of
 * chunks per query and need only a few dozen.
 */
export function selectTop(
  candidates: Iterable<number>,
  scoreOf: (index: number) => number,
  limit: number,
): LaneHit[] {
  if (limit <= 0) return [];
  const heap: LaneHit[] = [];
  // `worse(a, b)`: a ranks below b. The heap keeps its worst entry at the root.
  const worse = (a: LaneHit, b: LaneHit) => a.score < b.score || (a.score === b.score && a.index > b.index);
  const siftDown = (start: number) => {
    let position = start;
    for (;;) {
      const left = 2 * position + 1;
      const right = left + 1;
      let smallest = position;
      if (left < heap.length && worse(heap[left] as LaneHit, heap[smallest] as LaneHit)) smallest = left;
      if (right < heap.length && worse(heap[right] as LaneHit, heap[smallest] as LaneHit)) smallest = right;
      if (smallest === position) return;
      [heap[position], heap[smallest]] = [heap[smallest] as LaneHit, heap[position] as LaneHit];
      position = smallest;
    }
  };
  for (const index of candidates) {
    const score = scoreOf(index);
    // Most candidates lose to the heap's worst entry: reject them before allocating anything.
    const root = heap[0];
    if (
      heap.length === limit &&
      root !== undefined &&
      (score < root.score || (score === root.score && index > root.index))
    ) {
      continue;
    }
    const hit = { index, score };
    if (heap.length < limit) {
      heap.push(hit);
      let position = heap.length - 1;
      while (position > 0) {
        const parent = (position - 1) >> 1;
        if (!worse(heap[position] as LaneHit, heap[parent] as LaneHit)) break;
        [heap[position], heap[parent]] = [heap[parent] as LaneHit, heap[position] as LaneHit];
        position = parent;
      }
    } else if (worse(heap[0] as LaneHit, hit)) {
      heap[0] = hit;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
}
