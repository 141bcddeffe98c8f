import type { ChatModel } from '../../../models/index.ts';
import { openDatabase, SqliteRunStore } from '../../../store/index.ts';
import { startTestServer, TEST_TOKEN, type TestServer } from '../../test-support/start-test-server.ts';
import type { ResponseObject } from '../response-object.ts';
import type { ResponsesStreamEvent } from '../responses-event-mapper.ts';

/** Host tools as a CLI host declares them on `POST /v1/responses`. */
export const READ_FILE_TOOL = {
  type: 'function',
  name: 'read_file',
  description: 'Read a text file from the local disk',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'Path of the file' } },
    required: ['path'],
    additionalProperties: false,
  },
} as const;

export const LOCAL_TIME_TOOL = {
  type: 'function',
  name: 'local_time',
  description: 'Get the local time of the host',
  parameters: {
    type: 'object',
    properties: { timezone: { type: 'string', description: 'IANA time zone' } },
    additionalProperties: false,
  },
} as const;

/** One SSE frame of a Responses stream: its `id:`, `event:` and parsed `data:`. */
export interface ResponsesFrame {
  id: string | undefined;
  event: string | undefined;
  data: ResponsesStreamEvent;
}

/** The frames of an SSE body; frames without `data:` (the `retry:` frame, `: ping`) are skipped. */
export function parseSse(text: string): ResponsesFrame[] {
  const frames: ResponsesFrame[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let id: string | undefined;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0)
      frames.push({ id, event, data: JSON.parse(data.join('\n')) as ResponsesStreamEvent });
  }
  return frames;
}

/** A whole SSE response body as frames (the stream must end: the response finished or paused). */
export async function readFrames(response: Response): Promise<ResponsesFrame[]> {
  if (response.status !== 200)
    throw new Error(`expected a stream, got ${response.status}: ${await response.text()}`);
  return parseSse(await response.text());
}

/** A whole SSE response body as its events. */
export async function readEvents(response: Response): Promise<ResponsesStreamEvent[]> {
  return (await readFrames(response)).map((frame) => frame.data);
}

/** A whole NDJSON body as its events; blank lines (heartbeats) are skipped. */
export async function readNdjson(response: Response): Promise<ResponsesStreamEvent[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ResponsesStreamEvent);
}

export const typesOf = (events: readonly ResponsesStreamEvent[]) => events.map((event) => event.type);

/** The response object an event carries (`response.created`, `.requires_action`, `.completed` …). */
export function responseOf(event: ResponsesStreamEvent | undefined): ResponseObject {
  const response = event?.response as ResponseObject | undefined;
  if (response === undefined) throw new Error(`no response object on ${event?.type ?? 'no event'}`);
  return response;
}

/** The last event of a stream, which carries the response as the stream left it. */
export function lastResponse(events: readonly ResponsesStreamEvent[]): ResponseObject {
  return responseOf(events.at(-1));
}

/**
 * `fetch` against a test server with a bearer token (the demo user's unless told), in the extension
 * shape (`x-runstream-extensions: 1`) unless made with `plain: true`.
 */
export class ResponsesApi {
  readonly baseUrl: string;
  readonly token: string;
  readonly plain: boolean;

  constructor(baseUrl: string, token: string = TEST_TOKEN, plain = false) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.plain = plain;
  }

  as(token: string): ResponsesApi {
    return new ResponsesApi(this.baseUrl, token, this.plain);
  }

  /** The same token against another server (e.g. after a restart). */
  at(baseUrl: string): ResponsesApi {
    return new ResponsesApi(baseUrl, this.token, this.plain);
  }

  /** The same client in the plain (OpenAI-compatible) shape: no extension header. */
  plainShape(): ResponsesApi {
    return new ResponsesApi(this.baseUrl, this.token, true);
  }

  request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${this.token}`);
    if (!this.plain && !headers.has('x-runstream-extensions')) headers.set('x-runstream-extensions', '1');
    if (init.body !== undefined && !headers.has('content-type'))
      headers.set('content-type', 'application/json');
    return fetch(`${this.baseUrl}${path}`, { ...init, headers });
  }

  post(path: string, body: unknown, headers: HeadersInit = {}): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  /** `POST /v1/responses`. */
  create(body: Record<string, unknown>, headers: HeadersInit = {}): Promise<Response> {
    return this.post('/v1/responses', body, headers);
  }

  /** `POST /v1/responses` with `stream: true`, read to its end. */
  async createStream(body: Record<string, unknown>, headers: HeadersInit = {}): Promise<ResponsesFrame[]> {
    return readFrames(await this.create({ ...body, stream: true }, headers));
  }

  /** `POST /v1/responses` with `stream: false`: the response object. */
  async createObject(body: Record<string, unknown>): Promise<ResponseObject> {
    const response = await this.create({ ...body, stream: false });
    if (response.status !== 200) throw new Error(`create: ${response.status} ${await response.text()}`);
    return (await response.json()) as ResponseObject;
  }

  /** `POST /v1/responses/{id}/tool_results`. */
  submit(id: string, body: unknown, headers: HeadersInit = {}): Promise<Response> {
    return this.post(`/v1/responses/${id}/tool_results`, body, headers);
  }

  cancel(id: string, body: Record<string, unknown> = {}): Promise<Response> {
    return this.post(`/v1/responses/${id}/cancel`, body);
  }

  /** `GET /v1/responses/{id}`: the response object as it stands (a refresh). */
  async get(id: string): Promise<ResponseObject> {
    const response = await this.request(`/v1/responses/${id}`);
    if (response.status !== 200) throw new Error(`get: ${response.status} ${await response.text()}`);
    return (await response.json()) as ResponseObject;
  }

  /** `GET /v1/responses/{id}?stream=true` (after `starting_after`, when given). */
  resume(id: string, startingAfter?: number, headers: HeadersInit = {}): Promise<Response> {
    const query = startingAfter === undefined ? '' : `&starting_after=${startingAfter}`;
    return this.request(`/v1/responses/${id}?stream=true${query}`, { headers });
  }
}

/** A test server (offline model unless `model` is given) and a client of its Responses API. */
export async function startResponsesServer(
  model?: ChatModel,
): Promise<{ server: TestServer; api: ResponsesApi }> {
  const server = await startTestServer(model === undefined ? {} : { model });
  return { server, api: new ResponsesApi(server.server.url) };
}

/** A second user with a token, written into the running server's SQLite file. */
export async function addUser(server: TestServer, name: string): Promise<string> {
  const database = openDatabase(server.databasePath);
  try {
    const store = new SqliteRunStore(database);
    const user = await store.createUser(name);
    return await store.issueToken(user.id, 'test');
  } finally {
    database.close();
  }
}
