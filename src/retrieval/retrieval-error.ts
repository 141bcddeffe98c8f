export type RetrievalErrorCode =
  | 'dimension_mismatch'
  | 'zero_vector'
  | 'embedding_failed'
  | 'rerank_failed'
  | 'invalid_source'
  | 'not_utf8'
  | 'empty_query'
  | 'invalid_eval_file';

/** A typed local error of the retrieval layer: branch on `code`, show `message` to people. */
export class RetrievalError extends Error {
  override readonly name = 'RetrievalError';
  readonly code: RetrievalErrorCode;

  constructor(code: RetrievalErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
