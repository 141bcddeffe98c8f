import type { SseMessage } from '../protocol/index.ts';
import { isRecord, serverMessage } from '../shared/index.ts';
import { HostFailure } from './host-failure.ts';

// The shapes of the Responses API that `runstream host` reads (the Response object, a stream event,
// a tool call the model made) and their parsing, in their own file: the host loop and its printers
// both use them.

/** The part of a Response object the host reads. */
export interface ResponseObject {
  id: string;
  status: string;
  error?: { code?: string; message?: string } | null;
  cancel_reason?: string | null;
  output?: unknown[];
  required_action?: {
    type: string;
    tool_calls: { call_id: string; name: string; arguments: string }[];
  } | null;
}

/** One event of the Responses stream. */
export interface StreamEvent extends Record<string, unknown> {
  type: string;
  sequence_number: number;
}

export type ToolCall = { call_id: string; name: string; arguments: string };

export function parseEvent(message: SseMessage): StreamEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || typeof data.sequence_number !== 'number') return undefined;
  return { ...data, type: typeof data.type === 'string' ? data.type : message.event } as StreamEvent;
}

export function parseObject(text: string): ResponseObject {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HostFailure(`the server answered something other than a response: ${serverMessage(text)}`);
  }
  if (!isRecord(body) || typeof body.id !== 'string' || typeof body.status !== 'string')
    throw new HostFailure(`the server answered something other than a response: ${serverMessage(text)}`);
  return body as unknown as ResponseObject;
}
