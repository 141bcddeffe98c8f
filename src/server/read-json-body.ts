import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { HttpError } from './http-error.ts';

/** Request bodies above this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Where a body is read from: the Web request, or on Node the `IncomingMessage` under it. */
export interface BodySource {
  request: Request;
  /** Node's request (see `nodeRequestOf`): read directly, without a Web stream over it. */
  incoming?: IncomingMessage | undefined;
}

/**
 * Read and validate a JSON body: 413 when it is too large (counted as it arrives, not trusted from
 * Content-Length), 400 `invalid_json` when it is not JSON, 400 `invalid_request` naming the field
 * when it does not fit the schema.
 */
export async function readJsonBody<T>(
  source: BodySource,
  schema: z.ZodType<T>,
  maxBytes = MAX_BODY_BYTES,
): Promise<T> {
  const { request, incoming } = source;
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const parsedByHost = incoming === undefined ? undefined : hostParsedBody(incoming);
  let value: unknown;
  if (parsedByHost !== undefined && typeof parsedByHost === 'object' && !isBytes(parsedByHost)) {
    // The host app's body parser (`express.json()`, Fastify's) read it already: its limits applied.
    value = parsedByHost;
  } else {
    const text =
      parsedByHost !== undefined
        ? bodyText(parsedByHost, maxBytes)
        : incoming !== undefined && !incoming.readableDidRead
          ? await readNodeBody(incoming, maxBytes)
          : await readWebBody(request, maxBytes);
    try {
      value = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      throw new HttpError(400, 'invalid_json', 'the body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(
      400,
      'invalid_request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

/** The body through the Web stream (other runtimes, `app.request` in tests). */
async function readWebBody(request: Request, maxBytes: number): Promise<string> {
  let text = '';
  if (request.body) {
    const reader = request.body.getReader();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let size = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw tooLarge(maxBytes);
      }
      try {
        text += decoder.decode(value, { stream: true });
      } catch {
        throw new HttpError(400, 'invalid_json', 'the body is not UTF-8 text');
      }
    }
  }
  return text;
}

/**
 * The body straight from Node's request: a Web stream over it costs a Request object, a reader and
 * a promise per chunk, about a millisecond before a run can start. Stops reading at `maxBytes`.
 */
function readNodeBody(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        // Read no further: Node closes the connection rather than draining a body nobody reads.
        incoming.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, size)));
      } catch {
        reject(new HttpError(400, 'invalid_json', 'the body is not UTF-8 text'));
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      if (incoming.readableEnded) return;
      cleanup();
      reject(new HttpError(400, 'invalid_request', 'the connection closed before the body ended'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/**
 * The body a host app's middleware already consumed and left on the request (`req.body`, as
 * Express's and Connect's body parsers do); `undefined` when nobody read the stream.
 */
function hostParsedBody(incoming: IncomingMessage): unknown {
  if (!incoming.readableDidRead) return undefined;
  return (incoming as IncomingMessage & { body?: unknown }).body;
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** A body a host parser kept as text (`express.text()`) or bytes (`express.raw()`). */
function bodyText(body: unknown, maxBytes: number): string {
  if (typeof body === 'string') {
    if (body.length > maxBytes) throw tooLarge(maxBytes);
    return body;
  }
  if (isBytes(body)) {
    if (body.byteLength > maxBytes) throw tooLarge(maxBytes);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      throw new HttpError(400, 'invalid_json', 'the body is not UTF-8 text');
    }
  }
  return JSON.stringify(body);
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'payload_too_large', `the body is larger than ${maxBytes} bytes`);
}
