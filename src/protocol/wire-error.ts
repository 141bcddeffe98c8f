import { z } from 'zod';

/**
 * The one error body every HTTP error response carries before a stream starts:
 * `{"error": {"code": "...", "message": "...", ...details}}`. Codes are stable; messages are for people.
 */
export const WireErrorBodySchema = z.object({
  error: z.looseObject({
    code: z.string().min(1),
    message: z.string(),
  }),
});
export type WireErrorBody = z.infer<typeof WireErrorBodySchema>;

/** Codes the server uses; clients may meet others and must treat unknown codes by HTTP status. */
export const WIRE_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'confirmation_pending',
  'decision_conflict',
  'run_finished',
  /** A conversation or request names an agent the server does not run. */
  'unknown_agent',
  /** A thread (AI SDK chat, AG-UI thread, Responses chain) already belongs to another agent. */
  'agent_mismatch',
  'payload_too_large',
  'rate_limited',
  'internal_error',
  'unavailable',
] as const;
export type WireErrorCode = (typeof WIRE_ERROR_CODES)[number];

export function wireError(
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): WireErrorBody {
  return { error: { ...details, code, message } };
}
