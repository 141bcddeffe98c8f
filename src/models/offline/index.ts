/**
 * The offline model: serves any agent without a key, deterministically (see `OfflineAgentModel`).
 */
export { OfflineAgentModel, type OfflineAgentModelOptions } from './offline-agent-model.ts';
export type { OfflineLanguage } from './offline-language.ts';
export { readOutcome as readToolOutcome, type ToolOutcome } from './read-run.ts';
export {
  type JsonSchema,
  resolveSchema as resolveJsonSchema,
  typeOf as jsonSchemaType,
} from './resolve-json-schema.ts';
