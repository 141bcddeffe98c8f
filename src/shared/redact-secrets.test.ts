import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.ts';

const SECRET = 'sk-live-9c1f4e2a7b3d5f60';

describe('redactSecrets', () => {
  it('replaces a secret of 8 characters or more wherever it stands as a whole token', () => {
    expect(redactSecrets(`key ${SECRET}. and "${SECRET}", (${SECRET})`, [SECRET])).toBe(
      'key [redacted]. and "[redacted]", ([redacted])',
    );
    expect(redactSecrets(`Bearer ${SECRET}`, ['', SECRET])).toBe('Bearer [redacted]');
  });

  it('never touches a shorter value, nor a secret inside a longer token', () => {
    expect(redactSecrets('maximum context exceeded', ['x'])).toBe('maximum context exceeded');
    expect(redactSecrets('maximum context exceeded', ['xceeded'])).toBe('maximum context exceeded');
    expect(redactSecrets(`${SECRET}abc and abc-${SECRET}`, [SECRET])).toBe(`${SECRET}abc and abc-${SECRET}`);
    expect(redactSecrets('abcdefgh12 and abcdefgh', ['abcdefgh'])).toBe('abcdefgh12 and [redacted]');
  });

  it('treats characters of the secret literally', () => {
    const secret = 'key.with+(special)*';
    expect(redactSecrets(`got ${secret} and keyXwith+(special)*`, [secret])).toBe(
      'got [redacted] and keyXwith+(special)*',
    );
  });
});
