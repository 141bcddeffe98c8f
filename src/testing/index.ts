/**
 * `runstream/testing`: what an app's own tests need. `scriptedModel` plays an agent's model turns
 * without a network; the conformance suites are the behaviour every store, event log and control
 * channel must have, the same ones runstream's SQLite, PostgreSQL, memory and Redis implementations
 * run, for a store or a bus of your own. The suites are Vitest `describe` blocks: vitest is an
 * optional peer that only this entry needs.
 */

export {
  type ControlChannelFixture,
  describeControlChannelConformance,
} from '../bus/test-support/control-channel-conformance.ts';
export {
  describeEventLogConformance,
  type EventLogFactory,
  type EventLogFixture,
} from '../bus/test-support/event-log-conformance.ts';
export {
  type ChatRequest,
  type ChatStreamPart,
  ScriptedChatModel,
  type ScriptedChatModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptedTurnInput,
  textTurn,
  toolCallTurn,
} from '../models/index.ts';
export {
  describeResponseRecordsConformance,
  type ResponseRecordsFixture,
} from '../store/test-support/response-records-conformance.ts';
export { describeRunStoreConformance } from '../store/test-support/run-store-conformance.ts';
export {
  createManualClock,
  type ManualClock,
  type RunStoreFactory,
  type RunStoreFixture,
  type RunStoreFixtureContext,
} from '../store/test-support/run-store-harness.ts';
export {
  describeToolAuditLogConformance,
  type ToolAuditLogFixture,
} from '../store/test-support/tool-audit-log-conformance.ts';
export {
  type ScriptedModelOptions,
  type ScriptedModelReply,
  type ScriptedModelTurn,
  type ScriptedTextTurn,
  type ScriptedToolCallsTurn,
  scriptedModel,
} from './scripted-model.ts';
