/**
 * Keys must not reach logs through error messages, even when a provider quotes the key it refused
 * (`Incorrect API key provided: sk-…`), or glues it to other text (`key=sk-…`, a key in a URL).
 *
 * A long secret (16 characters or more, as real API keys are) is removed wherever it appears: no
 * ordinary word contains one. A shorter one is removed only where it stands as a whole token, and
 * one under 8 characters (a placeholder such as `x`, common with local servers) not at all: replaced
 * everywhere, it would mangle ordinary words (`maximum` → `ma[redacted]imum`).
 */

/** Characters that continue a key-like token: a short secret next to one is part of a longer word. */
const TOKEN_CHARACTER = 'A-Za-z0-9_\\-';
/** Shorter values are not secrets worth hunting for, and would mangle ordinary words. */
const MIN_SECRET_LENGTH = 8;
/** From this length a secret is removed even inside a longer token. */
const UNMISTAKABLE_SECRET_LENGTH = 16;

/**
 * `text` with each secret replaced by `[redacted]`: everywhere for 16+ characters, as a whole token
 * for 8 to 15, never for fewer.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH || !redacted.includes(secret)) continue;
    if (secret.length >= UNMISTAKABLE_SECRET_LENGTH) {
      redacted = redacted.replaceAll(secret, '[redacted]');
      continue;
    }
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const wholeToken = new RegExp(`(?<![${TOKEN_CHARACTER}])${escaped}(?![${TOKEN_CHARACTER}])`, 'g');
    redacted = redacted.replace(wholeToken, '[redacted]');
  }
  return redacted;
}
