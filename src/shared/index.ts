/**
 * Shared: the lowest layer, small helpers every other layer may import. Browser-safe: no `node:`
 * modules and no imports from the other folders of src/.
 */
export * from './backoff-delay.ts';
export * from './http-url.ts';
export * from './redact-secrets.ts';
export * from './redact-url.ts';
export * from './retry-after.ts';
export * from './server-error-message.ts';
export * from './sha256.ts';
export * from './sleep.ts';
