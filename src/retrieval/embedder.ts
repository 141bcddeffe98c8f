/**
 * Turns texts into vectors for the vector lane. Implementations: an OpenAI-compatible
 * `/v1/embeddings` adapter (DashScope, OpenAI, Ollama …) and an offline embedder that needs no
 * weights. Queries and documents must be embedded by the same model (same `model`, same
 * `dimensions`): vectors from different spaces cannot be compared.
 */
export interface Embedder {
  /** Names the vector space, e.g. `text-embedding-v4@1024`; part of every cache key. */
  readonly model: string;
  /** The length of every vector this embedder returns. */
  readonly dimensions: number;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}
