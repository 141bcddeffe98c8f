/** The Vercel AI SDK's UI message stream dialect (docs/integrations/ai-sdk.md). */

export * from './ai-sdk-face.ts';
export * from './ai-sdk-request.ts';
export * from './ui-message-chunk-mapper.ts';
export * from './ui-message-stream.ts';
