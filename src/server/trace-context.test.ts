import { describe, expect, it } from 'vitest';
import { traceIdOf } from './trace-context.ts';

// A plain reader, not `Headers`: the test needs values `Headers` itself would refuse (a newline).
const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] });

describe('traceIdOf', () => {
  it('takes the trace id of a valid traceparent', () => {
    expect(
      traceIdOf(headers({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })),
    ).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('falls back to x-request-id, then to a new id; refuses malformed or all-zero values', () => {
    expect(traceIdOf(headers({ 'x-request-id': 'req-42' }))).toBe('req-42');
    expect(
      traceIdOf(
        headers({
          traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
          'x-request-id': 'r1',
        }),
      ),
    ).toBe('r1');
    expect(traceIdOf(headers({ 'x-request-id': 'bad id\nwith newline' }))).toMatch(/^[\da-f]{32}$/);
    expect(traceIdOf(headers({}))).toMatch(/^[\da-f]{32}$/);
  });
});
