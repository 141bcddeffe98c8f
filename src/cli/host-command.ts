import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SseDecoderStream, type SseMessage } from '../protocol/index.ts';
import {
  backoffDelay,
  describeCause,
  isHttpUrl,
  isRecord,
  retryAfterFromHeaders,
  serverMessage,
  sleep,
} from '../shared/index.ts';
import { HostFailure } from './host-failure.ts';
import { createPrinter, type Printer } from './host-printer.ts';
import { HOST_TOOLS, type HostToolResult, runHostTool } from './host-tools.ts';
import {
  parseEvent,
  parseObject,
  type ResponseObject,
  type StreamEvent,
  type ToolCall,
} from './response-object.ts';
import { UsageError } from './usage-error.ts';

export { preview } from './host-printer.ts';

export const HOST_USAGE = `Usage:
  runstream host "<prompt>" [--agent <id>] [--root <dir>] [--json] [--url http://127.0.0.1:8787] [--token <token>]

A host of the responses API (docs/responses-api.md) in the terminal: it declares two tools it runs
itself, read_file (a UTF-8 text file inside --root, default the current directory, up to 256 KiB)
and local_time, then streams the answer. When the model calls them it runs them here, submits
their results and follows the resumed response to its end. --agent picks one of the server's agents
(the response's model; default its first). --json prints each event as one JSON
line instead. Ctrl-C cancels the response (a second Ctrl-C quits). The token defaults to
$RUNSTREAM_TOKEN, the URL to $RUNSTREAM_URL or http://127.0.0.1:8787. Exit code: 0 completed,
1 failed or cancelled, 2 called wrongly.`;

/** Reconnects after a dropped stream before giving up. */
const MAX_RECONNECTS = 5;
const BACKOFF = { baseMs: 250, capMs: 4_000 };
/** The server sends a heartbeat every 15 s: this long without a byte means the connection is gone. */
const IDLE_TIMEOUT_MS = 45_000;

/** How one HTTP exchange ended. */
type Outcome =
  | { kind: 'finished'; status: 'completed' | 'failed' | 'cancelled'; response: ResponseObject }
  | { kind: 'requires_action'; response: ResponseObject }
  /** The connection ended before the response did: resume the stream. */
  | { kind: 'dropped'; reason: string; retryAfterMs?: number };

export interface HostCommandIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

/** `runstream host "<prompt>"`. Returns the exit code. */
export async function hostCommand(
  argv: string[],
  io: HostCommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      root: { type: 'string' },
      agent: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const prompt = positionals.join(' ').trim();
  if (prompt.length === 0) throw new UsageError('host needs a prompt', HOST_USAGE);
  const token = values.token ?? process.env.RUNSTREAM_TOKEN;
  if (!token)
    throw new UsageError(
      'host needs a token: --token, or RUNSTREAM_TOKEN (npm start prints one)',
      HOST_USAGE,
    );
  const baseUrl = (values.url ?? process.env.RUNSTREAM_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
  if (!isHttpUrl(baseUrl)) throw new UsageError(`--url must be an http(s) URL, not "${baseUrl}"`, HOST_USAGE);
  const root = resolve(values.root ?? '.');
  const rootStats = await stat(root).catch(() => undefined);
  if (!rootStats?.isDirectory()) throw new UsageError(`--root ${root} is not a directory`, HOST_USAGE);

  const host = new Host({
    baseUrl,
    token,
    root,
    printer: createPrinter(values.json === true, io),
    ...(values.agent === undefined ? {} : { agentId: values.agent }),
  });
  const onInterrupt = () => host.interrupt();
  process.on('SIGINT', onInterrupt);
  try {
    return await host.run(prompt);
  } catch (error) {
    io.stderr.write(`runstream: ${error instanceof HostFailure ? error.message : describeCause(error)}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * The start → tool call → tool result → resume loop. Each HTTP exchange (the starting POST, a
 * tool_results POST, a resuming GET) is one streamed answer read to its end; `sequence_number`s go
 * on across them, so the last one seen is where a dropped connection resumes.
 */
class Host {
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #root: string;
  readonly #printer: Printer;
  /** The agent the response runs (its `model`); the server's default when absent. */
  readonly #agentId: string | undefined;
  #responseId: string | undefined;
  #lastSequence = -1;
  /** Results already computed, by call_id: a retried submission sends the same ones. */
  readonly #results = new Map<string, HostToolResult>();
  #interrupts = 0;
  #cancelling = false;

  constructor(options: { baseUrl: string; token: string; root: string; printer: Printer; agentId?: string }) {
    this.#agentId = options.agentId;
    this.#baseUrl = options.baseUrl;
    this.#token = options.token;
    this.#root = options.root;
    this.#printer = options.printer;
  }

  async run(prompt: string): Promise<number> {
    let outcome = await this.#exchange(() =>
      this.#fetch('/v1/responses', {
        method: 'POST',
        body: JSON.stringify({
          ...(this.#agentId === undefined ? {} : { model: this.#agentId }),
          input: prompt,
          stream: true,
          tools: HOST_TOOLS,
        }),
      }),
    );
    let reconnects = 0;
    for (;;) {
      switch (outcome.kind) {
        case 'finished':
          return outcome.status === 'completed' ? 0 : 1;
        case 'dropped': {
          if (this.#responseId === undefined)
            throw new HostFailure(`${this.#baseUrl} did not start a response: ${outcome.reason}`);
          reconnects += 1;
          if (reconnects > MAX_RECONNECTS)
            throw new HostFailure(`the connection dropped ${MAX_RECONNECTS + 1} times (${outcome.reason})`);
          const wait = backoffDelay({
            attempt: reconnects,
            ...BACKOFF,
            random: Math.random,
            ...(outcome.retryAfterMs === undefined ? {} : { floorMs: outcome.retryAfterMs }),
          });
          this.#printer.note(`connection lost (${outcome.reason}); resuming in ${wait} ms`);
          await sleep(wait);
          const sequenceBefore = this.#lastSequence;
          outcome = await this.#resume();
          // A reconnect that brought events counts as a success: the next drop starts the count over.
          if (this.#lastSequence > sequenceBefore) reconnects = 0;
          break;
        }
        case 'requires_action': {
          const action = outcome.response.required_action;
          if (this.#cancelling) {
            outcome = await this.#settleAfterCancel();
            break;
          }
          if (action?.type !== 'submit_tool_outputs' || action.tool_calls.length === 0) {
            throw new HostFailure(
              'the response waits for the owner to confirm a server-side action, which this host ' +
                `cannot do: confirm it on the chat page (response ${outcome.response.id})`,
            );
          }
          const id = encodeURIComponent(outcome.response.id);
          const results = await this.#runTools(action.tool_calls);
          if (this.#cancelling) {
            outcome = await this.#settleAfterCancel();
            break;
          }
          outcome = await this.#exchange(() =>
            this.#fetch(`/v1/responses/${id}/tool_results`, {
              method: 'POST',
              body: JSON.stringify(results),
            }),
          );
          break;
        }
      }
    }
  }

  /** Ctrl-C: cancel the response once; a second Ctrl-C quits at once. */
  interrupt(): void {
    this.#interrupts += 1;
    if (this.#interrupts > 1 || this.#responseId === undefined) process.exit(130);
    this.#cancelling = true;
    this.#printer.note('cancelling… (Ctrl-C again to quit)');
    const id = this.#responseId;
    void this.#fetch(`/v1/responses/${encodeURIComponent(id)}/cancel`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'user_stop' }),
    })
      .then(async (response) => {
        if (!response.ok) this.#printer.note(`cancel failed: ${serverMessage(await response.text())}`);
      })
      .catch((error: unknown) => this.#printer.note(`cancel failed: ${describeCause(error)}`));
  }

  /** Run the requested tools in parallel; a call already answered keeps its result. */
  async #runTools(calls: ToolCall[]): Promise<({ call_id: string } & HostToolResult)[]> {
    return Promise.all(
      calls.map(async (call) => {
        let result = this.#results.get(call.call_id);
        if (result === undefined) {
          result = await runHostTool(call.name, call.arguments, { root: this.#root });
          this.#results.set(call.call_id, result);
          this.#printer.toolResult(call, result);
        }
        return { call_id: call.call_id, ...result };
      }),
    );
  }

  /** After a cancel: the response's final state, through the stream (or the object once it ends). */
  async #settleAfterCancel(): Promise<Outcome> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const response = await this.#getObject();
      if (response.status !== 'requires_action' && response.status !== 'in_progress')
        return this.#fromObject(response);
      await sleep(100);
    }
    throw new HostFailure('the response did not stop after the cancel');
  }

  /** Resume the stream after the last event seen; a 204 (nothing more) hands over to the object. */
  async #resume(): Promise<Outcome> {
    const id = encodeURIComponent(this.#responseId ?? '');
    return this.#exchange(() =>
      this.#fetch(`/v1/responses/${id}?stream=true`, {
        method: 'GET',
        headers: this.#lastSequence >= 0 ? { 'last-event-id': String(this.#lastSequence) } : {},
      }),
    );
  }

  async #getObject(): Promise<ResponseObject> {
    const response = await this.#fetch(`/v1/responses/${encodeURIComponent(this.#responseId ?? '')}`, {
      method: 'GET',
    });
    const text = await response.text();
    if (!response.ok) throw new HostFailure(serverMessage(text));
    return parseObject(text);
  }

  /** What to do next from the Response object, when the stream has nothing more to say. */
  #fromObject(response: ResponseObject): Outcome {
    switch (response.status) {
      case 'requires_action':
        return { kind: 'requires_action', response };
      case 'completed':
      case 'failed':
      case 'cancelled':
        this.#printer.finished(response);
        return { kind: 'finished', status: response.status, response };
      case 'incomplete':
        this.#printer.finished(response);
        return { kind: 'finished', status: 'failed', response };
      default:
        return { kind: 'dropped', reason: `the response is ${response.status} but its stream ended` };
    }
  }

  /** One request and its streamed answer, read to the end. */
  async #exchange(request: () => Promise<Response>): Promise<Outcome> {
    let response: Response;
    try {
      response = await request();
    } catch (error) {
      // The request may not have reached the server; resuming finds out what it did.
      return { kind: 'dropped', reason: describeCause(error) };
    }
    if (response.status === 204) {
      try {
        return this.#fromObject(await this.#getObject());
      } catch (error) {
        if (error instanceof HostFailure) throw error;
        return { kind: 'dropped', reason: describeCause(error) };
      }
    }
    if (!response.ok) {
      const message = serverMessage(await response.text().catch(() => ''));
      if (response.status >= 500 || response.status === 429) {
        const retryAfterMs = retryAfterFromHeaders(response.headers);
        return {
          kind: 'dropped',
          reason: `HTTP ${response.status}: ${message}`,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        };
      }
      throw new HostFailure(`${message} (HTTP ${response.status})`);
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.includes('text/event-stream')) {
      // A 202 to tool_results: the results were recorded but another call still waits, or they
      // had been recorded before (a retried submission) and the response has moved on.
      const object = parseObject(await response.text());
      this.#responseId ??= object.id;
      return object.status === 'in_progress' ? this.#resume() : this.#fromObject(object);
    }
    return this.#readStream(response);
  }

  async #readStream(response: Response): Promise<Outcome> {
    if (response.body === null) return { kind: 'dropped', reason: 'an empty stream' };
    const idle = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), IDLE_TIMEOUT_MS);
    };
    const watched = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          touch();
          controller.enqueue(chunk);
        },
      }),
    );
    const reader = watched.pipeThrough(new SseDecoderStream()).getReader();
    idle.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
    touch();
    try {
      for (;;) {
        let next: ReadableStreamReadResult<SseMessage>;
        try {
          next = await reader.read();
        } catch (error) {
          return { kind: 'dropped', reason: describeCause(error) };
        }
        if (next.done) {
          return {
            kind: 'dropped',
            reason: idle.signal.aborted ? 'no data for 45 s' : 'the stream ended early',
          };
        }
        const event = parseEvent(next.value);
        if (event === undefined) continue;
        // A resumed stream starts after the last event seen; anything older is a repeat.
        if (event.sequence_number <= this.#lastSequence) continue;
        this.#lastSequence = event.sequence_number;
        const outcome = this.#see(event);
        if (outcome !== undefined) {
          await reader.cancel().catch(() => undefined);
          return outcome;
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Print an event; the outcome when it ends this exchange. */
  #see(event: StreamEvent): Outcome | undefined {
    const response = isRecord(event.response) ? (event.response as unknown as ResponseObject) : undefined;
    if (response?.id) this.#responseId ??= response.id;
    this.#printer.event(event);
    if (response === undefined) return undefined;
    switch (event.type) {
      case 'response.requires_action':
        return { kind: 'requires_action', response };
      case 'response.completed':
        return { kind: 'finished', status: 'completed', response };
      case 'response.failed':
      case 'response.incomplete':
        return { kind: 'finished', status: 'failed', response };
      case 'response.cancelled':
        return { kind: 'finished', status: 'cancelled', response };
      default:
        return undefined;
    }
  }

  #fetch(path: string, init: { method: string; body?: string; headers?: Record<string, string> }) {
    return fetch(`${this.#baseUrl}${path}`, {
      method: init.method,
      headers: {
        authorization: `Bearer ${this.#token}`,
        accept: 'text/event-stream, application/json',
        // The host reads runstream's extension shape: requires_action, response.resumed, runstream_* items.
        'x-runstream-extensions': '1',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
  }
}
