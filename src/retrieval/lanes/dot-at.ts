/**
 * Dot product of `query` with the row of `matrix` that starts at `offset` (`query.length` wide): the
 * inner loop of both vector searches, exact and HNSW. Four accumulators let the CPU overlap the
 * multiplications.
 */
export function dotAt(matrix: Float32Array, offset: number, query: Float32Array): number {
  const length = query.length;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let index = 0;
  for (; index + 3 < length; index += 4) {
    a += (matrix[offset + index] as number) * (query[index] as number);
    b += (matrix[offset + index + 1] as number) * (query[index + 1] as number);
    c += (matrix[offset + index + 2] as number) * (query[index + 2] as number);
    d += (matrix[offset + index + 3] as number) * (query[index + 3] as number);
  }
  for (; index < length; index += 1) a += (matrix[offset + index] as number) * (query[index] as number);
  return a + b + c + d;
}
