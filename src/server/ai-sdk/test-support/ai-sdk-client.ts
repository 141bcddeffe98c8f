import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runInteropScript } from '../../test-support/interop-clients.ts';

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
