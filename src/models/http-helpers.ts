import type { ModelErrorCode } from './chat-model.ts';

/**
 * How model adapters read HTTP statuses. The generic helpers (a provider's error text, `Retry-After`,
 * waiting with an abort signal) live in `src/shared/`, shared with the client and retrieval layers.
 */

/**
 * How an HTTP status (or a status a provider puts in an in-stream error) is reported: a bad key is
 * `model_auth`, a bad request `model_bad_request`; throttling and server trouble may pass if retried.
 */
export function classifyStatus(status: number): { code: ModelErrorCode; retryable: boolean } {
  if (status === 401 || status === 403) return { code: 'model_auth', retryable: false };
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return { code: 'model_bad_request', retryable: false };
  }
  if (status === 429) return { code: 'model_rate_limited', retryable: true };
  if (status === 408 || status >= 500) return { code: 'model_unavailable', retryable: true };
  return { code: 'model_failed', retryable: false };
}
