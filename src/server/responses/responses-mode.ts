/**
 * Which shape a Responses request is answered in, chosen per request by a header:
 * - `plain` (the default): only event and item types OpenAI's own API has, so the official `openai`
 *   SDKs' stream helpers and the Agents SDK read every stream (docs/integrations/openai.md);
 * - `extension` (`x-runstream-extensions: 1`): runstream's richer shape with `requires_action`,
 *   `response.resumed`, `response.cancelled`, `runstream.*` events and `runstream_*` items
 *   (docs/responses-api.md), for `runstream host` and clients that know it.
 * Both are projections of the same run log; each has its own deterministic sequence numbers, so a
 * client keeps the mode it started a response with for its refreshes and resumes.
 */
export type ResponsesMode = 'plain' | 'extension';

export const EXTENSIONS_HEADER = 'x-runstream-extensions';

export function responsesModeOf(header: string | undefined): ResponsesMode {
  const value = header?.trim().toLowerCase();
  return value === '1' || value === 'true' || value === 'yes' ? 'extension' : 'plain';
}
