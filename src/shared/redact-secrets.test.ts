import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.ts';

const SECRET = 'sk-live-9c1f4e2a7b3d5f60';

describe('redactSecrets', () => {
  it('removes a real-length key wherever it stands, glued to other text too', () => {
    expect(redactSecrets(`key ${SECRET}. and "${SECRET}", (${SECRET})`, [SECRET])).toBe(
      'key [redacted]. and "[redacted]", ([redacted])',
    );
    expect(redactSecrets(`Bearer ${SECRET}`, ['', SECRET])).toBe('Bearer [redacted]');
    expect(redactSecrets(`key=${SECRET}abc and abc-${SECRET} and ?key=${SECRET}&x`, [SECRET])).toBe(
      'key=[redacted]abc and abc-[redacted] and ?key=[redacted]&x',
    );
  });

  it('removes a short secret only as a whole token, and one under 8 characters never', () => {
    expect(redactSecrets('maximum context exceeded', ['x'])).toBe('maximum context exceeded');
    expect(redactSecrets('maximum context exceeded', ['xceeded'])).toBe('maximum context exceeded');
    expect(redactSecrets('abcdefgh12 and abcdefgh', ['abcdefgh'])).toBe('abcdefgh12 and [redacted]');
    expect(redactSecrets('the keyword tokenizer, key tokenize', ['tokenize'])).toBe(
      'the keyword tokenizer, key [redacted]',
    );
  });

  it('treats characters of a short secret literally in its whole-token pattern', () => {
    const secret = 'key.w+(sp)*';
    expect(redactSecrets(`got ${secret} and keyXw+(sp)* and keyy.w+(sp)*`, [secret])).toBe(
      'got [redacted] and keyXw+(sp)* and keyy.w+(sp)*',
    );
  });
});
