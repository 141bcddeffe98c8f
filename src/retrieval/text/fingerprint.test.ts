import { describe, expect, it } from 'vitest';
import { TEXT_ANALYSIS_CODE_VERSION, textAnalysisFingerprint } from './fingerprint.ts';

describe('textAnalysisFingerprint', () => {
  it('names the code version and a hash of the tables', () => {
    expect(textAnalysisFingerprint()).toMatch(
      new RegExp(`^text-${TEXT_ANALYSIS_CODE_VERSION}:[0-9a-f]{12}$`),
    );
  });

  it('is stable within a process', () => {
    expect(textAnalysisFingerprint()).toBe(textAnalysisFingerprint());
  });
});
