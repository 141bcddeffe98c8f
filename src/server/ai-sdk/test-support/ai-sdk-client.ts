import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runInteropScript } from '../../test-support/interop-clients.ts';
import { TEST_TOKEN } from '../../test-support/start-test-server.ts';

/** A chunk as the AI SDK's transport parsed and validated it. */
export type Chunk = { type: string } & Record<string, unknown>;

/** A UIMessage as `readUIMessageStream` built it. */
export interface UiMessage {
  id: string;
  role: string;
  metadata?: Record<string, unknown>;
  parts: ({ type: string } & Record<string, unknown>)[];
}

export interface ClientResult {
  status: number;
  headers: Record<string, string>;
  chunks: Chunk[];
  message: UiMessage | null;
  /** Whether the SDK's `safeValidateUIMessages` accepts the message (`true`), or why not. */
  valid: true | string | null;
  error?: { name: string; message: string; statusCode?: number; responseBody?: string };
}

export interface ClientRequest {
  op: 'send' | 'resume';
  baseUrl: string;
  token: string;
  chatId: string;
  messages?: unknown[];
  /** The assistant message a continuation goes on from. */
  message?: UiMessage;
  /** Fields the transport adds to the body (`tools`). */
  body?: Record<string, unknown>;
}

/** `interop/ai-sdk-chat.mjs` on Node 22: the real `ai` package's transport and stream reader. */
export async function aiSdkClient(request: ClientRequest): Promise<ClientResult> {
  const { code, stdout, stderr } = await runInteropScript('ai-sdk-chat.mjs', [JSON.stringify(request)], {
    timeoutMs: 60_000,
  });
  if (code !== 0 || stdout.trim() === '') throw new Error(`ai-sdk-chat.mjs exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as ClientResult;
}

/** What the SDK made of one stream given to `readBySdk`. */
export type ReadResult = Pick<ClientResult, 'chunks' | 'message' | 'valid' | 'error'>;

/**
 * UI message streams made without a server (from a test's run log), parsed by the AI SDK's own
 * transport (every chunk checked against `uiMessageChunkSchema`) and built by `readUIMessageStream`.
 */
export async function readBySdk(streams: string[]): Promise<ReadResult[]> {
  const { code, stdout, stderr } = await runInteropScript(
    'ai-sdk-chat.mjs',
    [JSON.stringify({ op: 'read', streams })],
    { timeoutMs: 60_000 },
  );
  if (code !== 0 || stdout.trim() === '') throw new Error(`ai-sdk-chat.mjs exited ${code}: ${stderr}`);
  return (JSON.parse(stdout) as { results: ReadResult[] }).results;
}

/** A user message as `useChat().sendMessage({ text })` makes it. */
export function userMessage(id: string, text: string) {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

const run = promisify(execFile);
const BIN = new URL('../../../../bin/runstream.mjs', import.meta.url).pathname;

/** A second user with a token of their own, made as an operator would (the `runstream users` command). */
export async function createOtherUser(databasePath: string, name: string): Promise<string> {
  const users = async (...args: string[]) =>
    (
      await run(process.execPath, [BIN, 'users', ...args], {
        env: { ...process.env, RUNSTREAM_DB: databasePath, RUNSTREAM_DATABASE_URL: '' },
      })
    ).stdout.trim();
  return users('token', 'create', await users('add', name));
}

/** The NovaShop seed: the demo model finds the watch's order 88235 and asks to cancel it. */
export const SEED = '我买的那块表还没发货的话，帮我取消吧，不想要了。';

export type Part = UiMessage['parts'][number];

export function toolPart(message: UiMessage | null, name: string): Part | undefined {
  return message?.parts.find((part) => part.type === `tool-${name}`);
}

export function texts(message: UiMessage | null, type: 'text' | 'reasoning'): string[] {
  return (message?.parts ?? []).filter((part) => part.type === type).map((part) => String(part.text));
}

/** The message with the client's answer to its approval request, as `addToolApprovalResponse` leaves it. */
export function answered(message: UiMessage, approved: boolean): UiMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      part.state === 'approval-requested'
        ? { ...part, state: 'approval-responded', approval: { ...(part.approval as object), approved } }
        : part,
    ),
  };
}

/** The run as the native API reports it. */
export async function nativeRun(baseUrl: string, runId: string, token = TEST_TOKEN) {
  const response = await fetch(`${baseUrl}/v1/runs/${runId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as {
    status: string;
    messageId: string;
    lastSeq: number;
    cancelReason?: string;
  };
}

export async function rawGet(baseUrl: string, chatId: string, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/v1/ai-sdk/chat/${encodeURIComponent(chatId)}/stream`, {
    headers: { authorization: `Bearer ${TEST_TOKEN}`, ...headers },
  });
}

export async function post(
  baseUrl: string,
  body: unknown,
  token: string | null = TEST_TOKEN,
  signal?: AbortSignal,
) {
  return fetch(`${baseUrl}/v1/ai-sdk/chat`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** Read a streaming body until it holds `marker`; the text so far. */
export async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}
