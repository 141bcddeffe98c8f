/**
 * What a provider answers to a request it refuses: the HTTP status and the body it sends, as its
 * documentation (or its own server code) shows them, and which rule of PROVIDER-RULES.md was
 * broken, so a failing conformance test names the rule rather than just "400".
 */
export interface ProviderRefusal {
  status: number;
  body: unknown;
  /** The rule's id in PROVIDER-RULES.md, e.g. `deepseek.reasoning_content_back`. */
  rule: string;
}

/** The message inside a refusal body, whichever of the two error shapes it uses. */
export function refusalMessage(refusal: ProviderRefusal): string {
  const body = refusal.body as { error?: { message?: unknown } } | undefined;
  const message = body?.error?.message;
  return typeof message === 'string' ? message : JSON.stringify(refusal.body);
}

/** OpenAI's error body, which every OpenAI-compatible server imitates with small variations. */
export function openAiError(
  message: string,
  fields: { type?: string; param?: string | null; code?: string | null } = {},
): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return {
    error: {
      message,
      type: fields.type ?? 'invalid_request_error',
      param: fields.param ?? null,
      code: fields.code ?? null,
    },
  };
}
