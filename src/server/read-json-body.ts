import type { z } from 'zod';
import { HttpError } from './http-error.ts';

/** Request bodies above this are refused with 413 before they are parsed. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Read and validate a JSON body: 413 when it is too large (counted as it arrives, not trusted from
 * Content-Length), 400 `invalid_json` when it is not JSON, 400 `invalid_request` naming the field
 * when it does not fit the schema.
 */
export async function readJsonBody<T>(
  request: Request,
  schema: z.ZodType<T>,
  maxBytes = MAX_BODY_BYTES,
): Promise<T> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
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
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'the body is not valid JSON');
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

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'payload_too_large', `the body is larger than ${maxBytes} bytes`);
}
