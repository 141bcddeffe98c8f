/**
 * The load client of `npm run bench:server`, run in a child process so the server process's CPU and
 * RSS are the servers' own. It receives a batch of requests over IPC, starts them all at once with
 * `fetch`, reads every body to its end counting SSE frames (a frame ends with a blank line, `\n\n`),
 * and reports per-stream timings. The same code reads both the runstream server and the raw baseline;
 * a batch with a `format` reads another kind of SSE (bench:compare's AI SDK contender).
 */

export interface ClientRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/**
 * A server that does not stream runstream's events, e.g. the AI SDK's UI message stream: what marks its
 * end and what to count in it, so the caller can tell a whole stream from a cut one.
 */
export interface StreamFormat {
  /** `sawDone` means the last frame is exactly this (without its blank line), e.g. `data: [DONE]`. */
  doneFrame?: string;
  /**
   * Instead of `doneFrame`, for a stream whose last frame is too long to hold (the Responses face's
   * `response.completed` carries the whole answer): `sawDone` means this text came exactly once.
   */
  doneText?: string;
  /** Its occurrences in the body are counted into `StreamResult.counted`, e.g. `{"type":"text-delta"`. */
  countText: string;
}

export interface BatchMessage {
  type: 'batch';
  id: number;
  requests: ClientRequest[];
  /** Without it, runstream's SSE: `sawDone` means the last frame is the `done` event. */
  format?: StreamFormat;
}

export interface StreamResult {
  status: number;
  /** `x-runstream-run-id`, when the server sends it (runstream does, the raw baseline does not). */
  runId: string | null;
  /** From the batch start to the response headers. */
  headersMs: number;
  /** From the batch start to the end of the first complete frame. */
  firstEventMs: number;
  endMs: number;
  frames: number;
  bytes: number;
  /** Whether the last frame is the `done` event (or the batch format's `doneFrame`). */
  sawDone: boolean;
  /** Occurrences of the batch format's `countText`; only with a format. */
  counted?: number;
  error?: string;
}

export interface BatchResult {
  type: 'result';
  id: number;
  streams: StreamResult[];
  elapsedMs: number;
}

const LF = 0x0a;

/** Counts a text's occurrences in a body that arrives in chunks, across chunk boundaries too. */
class OccurrenceCounter {
  count = 0;
  readonly #needle: Buffer;
  /** The previous chunks' last `needle.length - 1` bytes: where a straddling occurrence starts. */
  #tail = Buffer.alloc(0);

  constructor(text: string) {
    this.#needle = Buffer.from(text);
  }

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const keep = this.#needle.length - 1;
    // Neither the tail nor `keep` bytes hold a whole occurrence, so every one found here straddles.
    const seam = Buffer.concat([this.#tail, bytes.subarray(0, keep)]);
    for (let at = seam.indexOf(this.#needle); at !== -1; at = seam.indexOf(this.#needle, at + 1)) {
      this.count += 1;
    }
    for (let at = bytes.indexOf(this.#needle); at !== -1; at = bytes.indexOf(this.#needle, at + 1)) {
      this.count += 1;
    }
    this.#tail =
      bytes.byteLength >= keep
        ? Buffer.from(bytes.subarray(bytes.byteLength - keep))
        : Buffer.concat([this.#tail, bytes]).subarray(
            Math.max(0, this.#tail.byteLength + bytes.byteLength - keep),
          );
  }
}

async function readStream(
  request: ClientRequest,
  batchStart: number,
  format: StreamFormat | undefined,
): Promise<StreamResult> {
  const result: StreamResult = {
    status: 0,
    runId: null,
    headersMs: Number.NaN,
    firstEventMs: Number.NaN,
    endMs: Number.NaN,
    frames: 0,
    bytes: 0,
    sawDone: false,
  };
  const counter = format ? new OccurrenceCounter(format.countText) : undefined;
  const doneCounter = format?.doneText !== undefined ? new OccurrenceCounter(format.doneText) : undefined;
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    result.headersMs = performance.now() - batchStart;
    result.status = response.status;
    result.runId = response.headers.get('x-runstream-run-id');
    if (response.body === null) throw new Error('no body');
    const reader = response.body.getReader();
    let previous = 0;
    let tail = '';
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      result.bytes += value.byteLength;
      counter?.push(value);
      doneCounter?.push(value);
      // A frame ends at "\n\n", which may straddle two reads. Native indexOf, not a byte loop.
      for (let at = value.indexOf(LF); at !== -1; at = value.indexOf(LF, at + 1)) {
        if ((at === 0 ? previous : value[at - 1]) !== LF) continue;
        result.frames += 1;
        if (result.frames === 1) result.firstEventMs = performance.now() - batchStart;
      }
      previous = value[value.byteLength - 1] ?? previous;
      // The last frame is short; the last 256 bytes always hold its `event:` line.
      tail = (tail + decoder.decode(value.subarray(Math.max(0, value.byteLength - 256)))).slice(-256);
    }
    result.endMs = performance.now() - batchStart;
    const lastFrame = tail.slice(0, -2).split('\n\n').at(-1) ?? '';
    result.sawDone =
      doneCounter !== undefined
        ? doneCounter.count === 1
        : format
          ? lastFrame === format.doneFrame
          : lastFrame.includes('event: done\n');
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    result.endMs = performance.now() - batchStart;
  }
  if (counter) result.counted = counter.count;
  return result;
}

async function runBatch(message: BatchMessage): Promise<BatchResult> {
  const batchStart = performance.now();
  const streams = await Promise.all(
    message.requests.map((request) => readStream(request, batchStart, message.format)),
  );
  return { type: 'result', id: message.id, streams, elapsedMs: performance.now() - batchStart };
}

process.on('message', (message: BatchMessage) => {
  if (message.type !== 'batch') return;
  void runBatch(message).then((result) => process.send?.(result));
});
// The parent going away (normally or not) ends the client.
process.on('disconnect', () => process.exit(0));
