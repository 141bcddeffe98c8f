/**
 * The load client of `npm run bench:server`, run in a child process so the server process's CPU and
 * RSS are the servers' own. It receives a batch of requests over IPC, starts them all at once with
 * `fetch`, reads every body to its end counting SSE frames (a frame ends with a blank line, `\n\n`),
 * and reports per-stream timings. The same code reads both the runstream server and the raw baseline.
 */

export interface ClientRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface BatchMessage {
  type: 'batch';
  id: number;
  requests: ClientRequest[];
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
  /** Whether the last frame is the `done` event. */
  sawDone: boolean;
  error?: string;
}

export interface BatchResult {
  type: 'result';
  id: number;
  streams: StreamResult[];
  elapsedMs: number;
}

const LF = 0x0a;

async function readStream(request: ClientRequest, batchStart: number): Promise<StreamResult> {
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
    result.sawDone = lastFrame.includes('event: done\n');
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    result.endMs = performance.now() - batchStart;
  }
  return result;
}

async function runBatch(message: BatchMessage): Promise<BatchResult> {
  const batchStart = performance.now();
  const streams = await Promise.all(message.requests.map((request) => readStream(request, batchStart)));
  return { type: 'result', id: message.id, streams, elapsedMs: performance.now() - batchStart };
}

process.on('message', (message: BatchMessage) => {
  if (message.type !== 'batch') return;
  void runBatch(message).then((result) => process.send?.(result));
});
// The parent going away (normally or not) ends the client.
process.on('disconnect', () => process.exit(0));
