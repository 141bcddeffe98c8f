/** Helpers the HTTP benchmarks share: a median, and reading one streamed response to its end. */
import { strictEqual } from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

export const median = (samples: readonly number[]) =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? Number.NaN;

export interface StreamRead {
  firstMs: number;
  totalMs: number;
  bytes: number;
}

/** Reads a 200 response whole, timing its first chunk and its end from `started`; `onChunk` sees each chunk. */
export async function readAll(
  response: Response,
  started: number,
  onChunk?: (chunk: Uint8Array) => void,
): Promise<StreamRead> {
  strictEqual(response.status, 200, `status ${response.status}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let firstMs = Number.NaN;
  let bytes = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (Number.isNaN(firstMs)) firstMs = performance.now() - started;
    bytes += value.byteLength;
    onChunk?.(value);
  }
  return { firstMs, totalMs: performance.now() - started, bytes };
}
