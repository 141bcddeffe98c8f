import type { ResponseRecord } from '../../store/index.ts';
import type { ResponseContext } from './response-object.ts';

/** What a response fixed when it started, as the mappers read it. */
export function contextOf(record: ResponseRecord): ResponseContext {
  return {
    id: record.id,
    createdAt: record.createdAt,
    model: record.model,
    instructions: record.instructions,
    tools: record.tools.map((tool) => ({ ...tool, strict: false })),
    previousResponseId: record.previousResponseId,
    conversationId: record.conversationId,
    traceId: record.traceId,
    metadata: record.metadata,
  };
}
