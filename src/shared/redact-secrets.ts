/**
 * Keys must not reach logs through error messages, even when a provider quotes the key it refused.
 * Only whole tokens are replaced: a short "key" (a placeholder such as `x`, common with local
 * servers) replaced everywhere would mangle ordinary words (`maximum` → `ma[redacted]imum`).
 */

/** Characters that continue a key-like token: a secret next to one of them is part of a longer word. */
const TOKEN_CHARACTER = 'A-Za-z0-9_\\-';
/** Shorter values are not secrets worth hunting for, and would mangle ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** `text` with every whole-token occurrence of each secret of 8+ characters replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH || !redacted.includes(secret)) continue;
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const wholeToken = new RegExp(`(?<![${TOKEN_CHARACTER}])${escaped}(?![${TOKEN_CHARACTER}])`, 'g');
    redacted = redacted.replace(wholeToken, '[redacted]');
  }
  return redacted;
}
