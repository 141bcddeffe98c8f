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

/** Hex digits of a token's hash that name it: 64 bits, unique among any realistic number of tokens. */
const TOKEN_ID_HEX = 16;

/**
 * A token's public name, from its stored hash: `tok_` and the hash's first 16 hex digits. Lists and
 * revocation use it, so the token itself is needed only by whoever holds it.
 */
export function tokenIdOf(tokenHash: string): string {
  return `tok_${tokenHash.slice(0, TOKEN_ID_HEX)}`;
}

/** The hash prefix a token id names, or undefined when it is not a token id. */
export function tokenHashPrefixOf(tokenId: string): string | undefined {
  const match = /^tok_([0-9a-f]{16})$/.exec(tokenId);
  return match?.[1];
}
