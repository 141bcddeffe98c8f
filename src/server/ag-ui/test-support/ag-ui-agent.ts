import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { openDatabase, SqliteRunStore } from '../../../store/index.ts';
import { TEST_TOKEN, type TestServer } from '../../test-support/start-test-server.ts';

/** The real `@ag-ui/client` HttpAgent pointed at a test server's `/v1/ag-ui`, with a bearer token. */
export function agentFor(url: string, threadId: string, token: string | null = TEST_TOKEN): HttpAgent {
  return new HttpAgent({
    url: `${url}/v1/ag-ui`,
    threadId,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

export interface RecordedRun {
  /** Every event the agent applied, after the client's own validation and verification. */
  events: BaseEvent[];
  types: string[];
  /** What `runAgent` rejected with, if it did (an HTTP status, a verifier error). */
  error?: Error & { status?: number; payload?: unknown };
}

/** One `runAgent` call, with every event its subscriber saw. */
export async function record(
  agent: HttpAgent,
  parameters: Parameters<HttpAgent['runAgent']>[0],
  onEvent?: (event: BaseEvent) => void | Promise<void>,
): Promise<RecordedRun> {
  const events: BaseEvent[] = [];
  try {
    await agent.runAgent(parameters, {
      onEvent: async ({ event }) => {
        events.push(event);
        await onEvent?.(event);
      },
    });
    return { events, types: events.map((event) => event.type) };
  } catch (error) {
    return { events, types: events.map((event) => event.type), error: error as RecordedRun['error'] };
  }
}

/** A second user with a token of their own, made on the server's SQLite file. */
export async function secondUser(server: TestServer, name: string): Promise<string> {
  const database = openDatabase(server.databasePath);
  try {
    const store = new SqliteRunStore(database);
    const user = await store.createUser(name);
    return await store.issueToken(user.id, 'ag-ui test');
  } finally {
    database.close();
  }
}

/** The events of one type, typed loosely for assertions. */
export function eventsOf(run: RecordedRun, type: string): Record<string, unknown>[] {
  return run.events.filter((event) => event.type === type) as unknown as Record<string, unknown>[];
}

/** runstream's ids, as RUN_STARTED's metadata names them. */
export function runstreamOf(run: RecordedRun): { runId: string; conversationId: string; messageId: string } {
  const started = eventsOf(run, 'RUN_STARTED')[0] ?? {};
  const metadata = (started.metadata ?? {}) as { runstream?: Record<string, string> };
  const { runId = '', conversationId = '', messageId = '' } = metadata.runstream ?? {};
  return { runId, conversationId, messageId };
}

/** One frame of an AG-UI SSE body: its `id:` (if any) and its event. */
export interface AgUiFrame {
  id: string | undefined;
  event: Record<string, unknown> & { type: string };
}

/** The frames of an SSE body; frames without `data:` (`retry:`, `: ping`) are skipped. */
export function parseAgUiSse(text: string): AgUiFrame[] {
  const frames: AgUiFrame[] = [];
  for (const block of text.split('\n\n')) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) frames.push({ id, event: JSON.parse(data.join('\n')) as AgUiFrame['event'] });
  }
  return frames;
}
