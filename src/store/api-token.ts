import { createHash, randomBytes } from 'node:crypto';

/** Prefix of tokens runstream issues, so a leaked one is recognisable (secret scanners, logs). */
export const API_TOKEN_PREFIX = 'rs_';

/** A new token: 32 random bytes, URL-safe so it fits a header, a cookie and `?access_token=`. */
export function generateApiToken(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * What the store keeps instead of the token. A plain SHA-256 (no salt, no slow hash) is enough for
 * issued tokens, which carry 256 random bits, and keeps a lookup one index probe. A caller-chosen
 * token (the demo token) is only as strong as the person who chose it.
 */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
