import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { createRunstreamClient, type RunStream } from '../client/index.ts';
import {
  fromMessage,
  type LoggedRunEvent,
  type MessageState,
  type TokenUsage,
  toMessage,
} from '../protocol/index.ts';
import { UsageError } from './usage-error.ts';

export const CHAT_USAGE = `Usage:
  runstream chat "<message>" [--conversation <id>] [--url http://127.0.0.1:8787] [--token <token>]

Streams one run in the terminal: blocks with their status and timing, a y/n question at a
confirmation card, and Ctrl-C as an explicit stop (a second Ctrl-C quits). The token defaults to
$RUNSTREAM_TOKEN, the URL to $RUNSTREAM_URL or http://127.0.0.1:8787.`;

const TOOL_STATUS: Record<string, string> = {
  pending: '待执行',
  running: '运行中',
  awaiting_confirmation: '待确认',
  done: '完成',
  failed: '失败',
  rejected: '已拒绝',
  cancelled: '已取消',
  interrupted: '已中断',
};

export async function chatCommand(
  argv: string[],
  output: NodeJS.WriteStream = process.stdout,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { conversation: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' } },
  });
  const text = positionals.join(' ').trim();
  if (text.length === 0) throw new UsageError('chat needs a message', CHAT_USAGE);
  const baseUrl = values.url ?? process.env.RUNSTREAM_URL ?? 'http://127.0.0.1:8787';
  const token = values.token ?? process.env.RUNSTREAM_TOKEN;
  if (!token)
    throw new UsageError(
      'chat needs a token: --token, or RUNSTREAM_TOKEN (npm start prints one)',
      CHAT_USAGE,
    );
  const client = createRunstreamClient({ baseUrl, token });
  const write = (line: string) => output.write(line);

  let conversationId = values.conversation;
  if (conversationId === undefined) {
    try {
      conversationId = (await client.createConversation()).id;
    } catch (error) {
      throw new UsageError(`could not create a conversation: ${(error as Error).message}`);
    }
  }

  // Ctrl-C once: an explicit stop the server records as user_stop. Twice: quit (a disconnect).
  let runId: string | undefined;
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1 || runId === undefined) process.exit(130);
    write('\n⏹ 正在停止…\n');
    void client.cancel(runId, 'user_stop').catch((error: unknown) => write(`停止失败：${String(error)}\n`));
  };
  process.on('SIGINT', onInterrupt);
  try {
    let stream: RunStream = client.sendMessage(conversationId, { text });
    for (;;) {
      const state = await render(stream, write, (id) => {
        runId = id;
      });
      if (state.status !== 'paused' || state.pause?.reason !== 'confirmation') {
        // Nothing when the provider reported no usage: an unknown cost is not a zero.
        if (state.usage !== null) write(`\n${usageLine(state.usage)}`);
        write(
          `\n[${state.status}${state.finishReason ? ` · ${state.finishReason}` : ''}] conversation ${conversationId}\n`,
        );
        return state.status === 'failed' ? 1 : 0;
      }
      if (runId === undefined) return 1;
      // One question per card; the run resumes (and streams) once the last one is answered.
      const cards = state.pause.pending;
      for (const [index, pending] of cards.entries()) {
        const label = cards.length > 1 ? `（${index + 1}/${cards.length}：${pending.name}）` : '';
        const answer = await ask(`确认执行这个操作吗？${label}[y/N] `);
        const decision = /^y(es)?$/i.test(answer.trim()) ? 'approve' : 'reject';
        stream = client.decide(runId, pending.toolCallId, decision, { state: fromMessage(toMessage(state)) });
        if (index < cards.length - 1) await stream.result();
      }
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    closeAnswers();
  }
}

/** Print a stream's blocks as they change; returns the state at its end. */
async function render(
  stream: RunStream,
  write: (text: string) => void,
  onRun: (runId: string) => void,
): Promise<MessageState> {
  for await (const { event, state } of stream) {
    if (state.runId) onRun(state.runId);
    write(describe(event, state));
  }
  return stream.state;
}

function describe(event: LoggedRunEvent, state: MessageState): string {
  switch (event.type) {
    case 'block.started':
      if (event.kind === 'reasoning') return '\n💭 ';
      if (event.kind === 'answer') return '\n';
      if (event.kind === 'error') return '\n⚠ ';
      if (event.kind === 'tool') return `\n🔧 ${event.title}`;
      if (event.kind !== 'confirm') return '';
      return `\n┌ 请确认：${event.title}\n│ ${event.description}\n${event.details.map((detail) => `│ ${detail.label}：${detail.value}`).join('\n')}\n└`;
    case 'block.delta': {
      const block = state.blocks.find((candidate) => candidate.blockId === event.blockId);
      return block?.kind === 'tool' ? '' : event.text;
    }
    case 'block.updated':
      return event.kind === 'tool' && event.status ? ` · ${TOOL_STATUS[event.status] ?? event.status}` : '';
    case 'block.ended': {
      const seconds = (event.durationMs / 1000).toFixed(1);
      const block = state.blocks.find((candidate) => candidate.blockId === event.blockId);
      return block?.kind === 'reasoning'
        ? `（思考了 ${seconds} 秒）`
        : block?.kind === 'tool'
          ? `（${event.durationMs} 毫秒）`
          : '';
    }
    case 'run.hint':
      return `\nℹ ${event.text}`;
    default:
      return '';
  }
}

const count = new Intl.NumberFormat('zh-CN');

/** The run's token usage, with the details the provider reported (the web timeline's wording). */
export function usageLine(usage: TokenUsage): string {
  const cached =
    usage.cachedInputTokens === undefined ? '' : `（缓存命中 ${count.format(usage.cachedInputTokens)}）`;
  const reasoning =
    usage.reasoningTokens === undefined ? '' : `（推理 ${count.format(usage.reasoningTokens)}）`;
  return `Token 用量：输入 ${count.format(usage.inputTokens)}${cached} · 输出 ${count.format(usage.outputTokens)}${reasoning}`;
}

/**
 * Questions share one reader of standard input: a piped `y\ny\n` answers two cards, where a reader
 * per question would swallow the second line with the first.
 */
let answers: AsyncIterator<string> | undefined;
let readline: ReturnType<typeof createInterface> | undefined;

async function ask(question: string): Promise<string> {
  process.stdout.write(`\n${question}`);
  if (readline === undefined) {
    readline = createInterface({ input: process.stdin, terminal: false });
    answers = readline[Symbol.asyncIterator]();
  }
  const next = await answers?.next();
  return next === undefined || next.done ? '' : next.value;
}

/** Release standard input so the process can exit. */
export function closeAnswers(): void {
  readline?.close();
  readline = undefined;
  answers = undefined;
}
