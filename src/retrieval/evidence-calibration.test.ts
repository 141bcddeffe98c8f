import { describe, expect, it } from 'vitest';
import { confusionAt, fitThreshold, rocAuc } from './evidence-calibration.ts';

const question = (strength: number, answerable: boolean) => ({ strength, answerable });

describe('evidence calibration', () => {
  it('computes ROC AUC with ties counted half, and null without both kinds', () => {
    expect(rocAuc([question(3, true), question(2, true), question(1, false)])).toBe(1);
    expect(rocAuc([question(1, true), question(2, false)])).toBe(0);
    expect(rocAuc([question(2, true), question(2, false), question(3, true), question(1, false)])).toBe(
      (1 + 0.5 + 1 + 1) / 4,
    );
    expect(rocAuc([question(Number.POSITIVE_INFINITY, true), question(5, false)])).toBe(1);
    expect(rocAuc([question(1, true)])).toBeNull();
  });

  it('fits the threshold that flags the most unanswerable questions within the false-flag budget', () => {
    const questions = [
      question(1, false),
      question(2, false),
      question(2.5, true),
      question(3, false),
      question(4, true),
      question(5, true),
      question(Number.POSITIVE_INFINITY, true),
    ];
    // No answerable question may be flagged: below 2.25 flags two of the three unanswerable ones.
    expect(fitThreshold(questions, 0)).toEqual({
      threshold: 2.25,
      flaggedUnanswerable: 2,
      flaggedAnswerable: 0,
    });
    // One answerable in four may be: below 3.5 flags all three.
    expect(fitThreshold(questions, 0.25)).toEqual({
      threshold: 3.5,
      flaggedUnanswerable: 3,
      flaggedAnswerable: 1,
    });
    expect(confusionAt(questions, 0.5)).toEqual({
      threshold: 0.5,
      flaggedUnanswerable: 0,
      flaggedAnswerable: 0,
    });
    expect(fitThreshold([question(1, true)])).toBeNull();
  });
});
