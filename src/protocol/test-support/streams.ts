/** A readable stream that yields `chunks` in order, then closes: a fake `fetch` body. */
export function fromChunks<T>(chunks: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** Everything a readable stream yields, or its error. */
export async function collect<T>(readable: ReadableStream<T>): Promise<T[]> {
  const values: T[] = [];
  const reader = readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return values;
    values.push(value);
  }
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
