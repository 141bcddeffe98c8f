import { describe, expect, it } from 'vitest';
import { EnvironmentSettings } from './environment-settings.ts';
import { RetrievalError } from './retrieval-error.ts';

function errorOf(action: () => unknown): RetrievalError {
  try {
    action();
  } catch (error) {
    if (error instanceof RetrievalError) return error;
    throw error;
  }
  throw new Error('expected a RetrievalError');
}

describe('EnvironmentSettings', () => {
  it('trims values and takes a blank one as unset', () => {
    const settings = new EnvironmentSettings({ A: '  x ', B: '   ', C: '' }, 'rerank_failed');
    expect(settings.text('A')).toBe('x');
    expect(settings.text('B')).toBeUndefined();
    expect(settings.text('C')).toBeUndefined();
    expect(settings.text('D')).toBeUndefined();
  });

  it('reads positive integers and numbers, naming the variable and the part when one is not', () => {
    const settings = new EnvironmentSettings(
      { COUNT: ' 20 ', ZERO: '0', WORDS: 'lots', SCORE: '-0.5', NAN: 'high' },
      'embedding_failed',
    );
    expect(settings.positiveInteger('COUNT')).toBe(20);
    expect(settings.positiveInteger('MISSING')).toBeUndefined();
    expect(settings.number('SCORE')).toBe(-0.5);
    for (const [action, message] of [
      [() => settings.positiveInteger('ZERO'), 'ZERO must be a positive integer, got "0"'],
      [() => settings.positiveInteger('WORDS'), 'WORDS must be a positive integer, got "lots"'],
      [() => settings.number('NAN'), 'NAN must be a number, got "high"'],
    ] as const) {
      const error = errorOf(action);
      expect(error.code).toBe('embedding_failed');
      expect(error.message).toBe(message);
    }
  });

  it('refuses a setting that means something only beside one that is unset', () => {
    const settings = new EnvironmentSettings({ URL: 'http://x', MODEL: ' ' }, 'rerank_failed');
    expect(errorOf(() => settings.requireFor('MODEL', ['KEY', 'URL'])).message).toBe(
      'URL is set but MODEL is not',
    );
    expect(() => settings.requireFor('URL', ['MODEL'])).not.toThrow();
    expect(() => settings.requireFor('MODEL', ['KEY'])).not.toThrow();
  });
});
