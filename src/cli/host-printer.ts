import { isRecord } from '../shared/index.ts';
import type { HostCommandIo } from './host-command.ts';
import type { HostToolResult } from './host-tools.ts';
import type { ResponseObject, StreamEvent, ToolCall } from './response-object.ts';

// How `runstream host` shows what happens, kept apart from the host loop in `host-command.ts`: the
// loop only calls a `Printer`, and the transcript's layout is its own concern.

/** How much of a tool's result the transcript shows. */
const RESULT_PREVIEW_CHARS = 160;

/** Where the host writes what happens: a transcript for people, or JSON lines for scripts. */
export interface Printer {
  event(event: StreamEvent): void;
  toolResult(call: ToolCall, result: HostToolResult): void;
  /** A note about the host itself (reconnecting, cancelling). */
  note(text: string): void;
  /** The response ended without its final event in the stream (seen through GET). */
  finished(response: ResponseObject): void;
}

/** A one-line preview: newlines shown as ⏎, long text cut with its full length. */
export function preview(result: HostToolResult): string {
  const text = 'error' in result ? result.error : outputText(result.output);
  const flat = text.replace(/\r?\n/g, '⏎');
  const chars = Array.from(flat);
  return chars.length <= RESULT_PREVIEW_CHARS
    ? flat
    : `${chars.slice(0, RESULT_PREVIEW_CHARS).join('')}… (${Array.from(text).length} chars)`;
}

function outputText(output: string | Record<string, unknown>): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

export function createPrinter(json: boolean, io: HostCommandIo): Printer {
  if (json) {
    const line = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
    return {
      event: line,
      toolResult: (call, result) =>
        line({ type: 'host.tool_result', call_id: call.call_id, name: call.name, ...result }),
      note: (text) => io.stderr.write(`runstream: ${text}\n`),
      finished: (response) => line({ type: `host.response.${response.status}`, response }),
    };
  }
  return new TranscriptPrinter(io);
}

/**
 * The transcript: reasoning after 💭 (dimmed on a terminal), the answer as it streams, a 🔧 line per
 * tool call, a ↳ line per result the host submits, ▶ when the response resumes.
 */
class TranscriptPrinter implements Printer {
  readonly #io: HostCommandIo;
  readonly #color: boolean;
  /** Whether the cursor is at the start of a line. */
  #atLineStart = true;
  /** The text item being written (reasoning or answer). */
  #openItem: string | undefined;

  constructor(io: HostCommandIo) {
    this.#io = io;
    this.#color = io.stdout.isTTY === true && process.env.NO_COLOR === undefined;
  }

  event(event: StreamEvent): void {
    switch (event.type) {
      case 'response.created':
        this.#line(this.#dim(`▶ response ${responseOf(event)?.id ?? ''} started`));
        break;
      case 'response.reasoning_text.delta':
        this.#text(String(event.item_id), '💭 ', String(event.delta), true);
        break;
      case 'response.output_text.delta':
        this.#text(String(event.item_id), '', String(event.delta), false);
        break;
      case 'response.reasoning_text.done':
      case 'response.output_text.done':
        this.#endText();
        break;
      case 'response.output_item.done':
        this.#itemDone(isRecord(event.item) ? event.item : {});
        break;
      case 'runstream.hint':
        this.#line(`ℹ ${String(event.text)}`);
        break;
      case 'response.resumed': {
        const ids = Array.isArray(event.call_ids) ? event.call_ids.length : 0;
        this.#line(this.#dim(`▶ resumed${ids > 0 ? ` with ${ids} tool result${ids === 1 ? '' : 's'}` : ''}`));
        break;
      }
      case 'response.completed':
      case 'response.failed':
      case 'response.incomplete':
      case 'response.cancelled': {
        const response = responseOf(event);
        if (response) this.finished(response);
        break;
      }
    }
  }

  toolResult(call: ToolCall, result: HostToolResult): void {
    this.#line(`↳ ${'error' in result ? 'error' : 'result'} ${call.name}: ${preview(result)}`);
  }

  note(text: string): void {
    this.#endText();
    this.#io.stderr.write(`runstream: ${text}\n`);
  }

  finished(response: ResponseObject): void {
    this.#endText();
    if (response.status === 'completed') {
      this.#line(`[completed] response ${response.id}`);
    } else if (response.status === 'cancelled') {
      this.#line(
        `[cancelled${response.cancel_reason ? ` · ${response.cancel_reason}` : ''}] response ${response.id}`,
      );
    } else {
      const error = response.error;
      const message = error?.message ?? 'the response failed';
      this.#line(`[${response.status}] response ${response.id}`);
      this.#io.stderr.write(`runstream: ${message}${error?.code ? ` [${error.code}]` : ''}\n`);
    }
  }

  #itemDone(item: Record<string, unknown>): void {
    switch (item.type) {
      case 'function_call':
        this.#line(`🔧 ${String(item.name)} ${String(item.arguments)}`);
        break;
      case 'runstream_tool_call':
        // The server's own tools: shown, not run here.
        this.#line(`⚙ ${String(item.name)} ${String(item.arguments)} · ${String(item.status)} (server)`);
        break;
      case 'runstream_confirmation':
        this.#line(`┌ needs confirmation: ${String(item.title)}`);
        break;
      case 'runstream_error':
        this.#line(`⚠ ${String(item.text)}`);
        break;
    }
  }

  #text(itemId: string, prefix: string, delta: string, dim: boolean): void {
    if (this.#openItem !== itemId) {
      this.#endText();
      this.#openItem = itemId;
      this.#write(prefix);
    }
    this.#write(dim ? this.#dim(delta) : delta);
  }

  #endText(): void {
    this.#openItem = undefined;
    if (!this.#atLineStart) this.#write('\n');
  }

  #line(text: string): void {
    this.#endText();
    this.#write(`${text}\n`);
  }

  #write(text: string): void {
    if (text === '') return;
    this.#io.stdout.write(text);
    this.#atLineStart = text.endsWith('\n');
  }

  #dim(text: string): string {
    return this.#color ? `\x1b[2m${text}\x1b[22m` : text;
  }
}

function responseOf(event: StreamEvent): ResponseObject | undefined {
  return isRecord(event.response) ? (event.response as unknown as ResponseObject) : undefined;
}
