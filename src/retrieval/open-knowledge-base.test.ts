import { describe, expect, it } from 'vitest';
import { rerankOptionsFromEnv } from './open-knowledge-base.ts';

describe('rerankOptionsFromEnv', () => {
  it('reads the candidates and the low-evidence line only beside a reranker', () => {
    const env = { RUNSTREAM_RERANK_MODEL: 'm', RUNSTREAM_RERANK_URL: 'http://x/v1/rerank' };
    expect(rerankOptionsFromEnv({})).toEqual({});
    const options = rerankOptionsFromEnv({
      ...env,
      RUNSTREAM_RERANK_CANDIDATES: '30',
      RUNSTREAM_RERANK_LOW_EVIDENCE: '0.25',
    });
    expect(options.rerankCandidates).toBe(30);
    expect(options.rerankLowEvidenceScore).toBe(0.25);
    expect(options.reranker?.model).toBe('m');
    expect(() => rerankOptionsFromEnv({ RUNSTREAM_RERANK_CANDIDATES: '30' })).toThrow(
      /RUNSTREAM_RERANK_CANDIDATES is set but RUNSTREAM_RERANK_MODEL is not/,
    );
    expect(() => rerankOptionsFromEnv({ ...env, RUNSTREAM_RERANK_CANDIDATES: '0' })).toThrow(
      /positive integer/,
    );
    expect(() => rerankOptionsFromEnv({ ...env, RUNSTREAM_RERANK_LOW_EVIDENCE: 'high' })).toThrow(
      /must be a number/,
    );
  });
});
