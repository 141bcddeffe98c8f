import { describe, expect, it } from 'vitest';
import {
  describeCause,
  errorObjectMessage,
  isRecord,
  serverMessage,
  truncate,
} from './server-error-message.ts';

describe('isRecord', () => {
  it('is true for plain objects only', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ error: 1 })).toBe(true);
    expect(isRecord([])).toBe(false);
    expect(isRecord(null)).toBe(false);
    expect(isRecord('text')).toBe(false);
    expect(isRecord(3)).toBe(false);
  });
});

describe('truncate', () => {
  it('trims, and cuts text longer than 300 characters with an ellipsis', () => {
    expect(truncate('  short  ')).toBe('short');
    expect(truncate('x'.repeat(300))).toBe('x'.repeat(300));
    expect(truncate(`  ${'y'.repeat(301)}  `)).toBe(`${'y'.repeat(300)}…`);
  });
});

describe('describeCause', () => {
  it("adds the cause's message that fetch hides behind 'fetch failed'", () => {
    const error = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    expect(describeCause(error)).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(describeCause(new Error('plain'))).toBe('plain');
    expect(describeCause(new Error('odd', { cause: 'not an error' }))).toBe('odd');
    expect(describeCause('a string')).toBe('a string');
  });
});

describe('errorObjectMessage', () => {
  it('reads {error: {message, code}}, adding the code when it says something else', () => {
    expect(errorObjectMessage({ error: { message: 'Incorrect API key', code: 'invalid_api_key' } })).toBe(
      'Incorrect API key [invalid_api_key]',
    );
    expect(errorObjectMessage({ error: { message: 'busy', code: 'busy' } })).toBe('busy');
    expect(errorObjectMessage({ error: { message: 'Slow down' } })).toBe('Slow down');
  });

  it('reads {error: "text"}, {message}, {detail}, and a bare code', () => {
    expect(errorObjectMessage({ error: 'model not found' })).toBe('model not found');
    expect(errorObjectMessage({ message: 'bad input', code: 'E42' })).toBe('bad input [E42]');
    expect(errorObjectMessage({ detail: 'Not authenticated' })).toBe('Not authenticated');
    expect(errorObjectMessage({ error: { code: 'rate_limit_exceeded' } })).toBe('rate_limit_exceeded');
  });

  it('is undefined when there is no message', () => {
    expect(errorObjectMessage({ error: {} })).toBeUndefined();
    expect(errorObjectMessage({ message: '' })).toBeUndefined();
    expect(errorObjectMessage([1, 2])).toBeUndefined();
    expect(errorObjectMessage('text')).toBeUndefined();
  });

  it('truncates a long message', () => {
    expect(errorObjectMessage({ message: 'm'.repeat(400) })).toBe(`${'m'.repeat(300)}…`);
  });
});

describe('serverMessage', () => {
  it("uses the error object's message when the body is JSON", () => {
    expect(serverMessage('{"error":{"message":"Slow down","code":"rate_limited"}}')).toBe(
      'Slow down [rate_limited]',
    );
  });

  it('shows JSON without a message, and text that is not JSON, as it is (truncated)', () => {
    expect(serverMessage('{"status":"bad"}')).toBe('{"status":"bad"}');
    expect(serverMessage('  Bad Gateway\n')).toBe('Bad Gateway');
    const page = `<html>${'<p>proxy error</p>'.repeat(50)}</html>`;
    expect(serverMessage(page)).toBe(`${page.slice(0, 300)}…`);
  });

  it('says so when the body is empty', () => {
    expect(serverMessage('')).toBe('(empty body)');
    expect(serverMessage('  \n')).toBe('(empty body)');
  });
});
