import type { Hono } from 'hono';
import type { RunManager } from '../runtime/index.ts';
import type { RunStore, User } from '../store/index.ts';
import type { RunInputService } from './run-input/index.ts';

/** What the app's middleware sets on every /v1 request a face handles. */
export type FaceEnv = { Variables: { user: User; traceId: string } };

/** What a face is given to mount with: the same store, runs and input service as every other face. */
export interface FaceContext {
  store: RunStore;
  runs: RunManager;
  /** How a request becomes a run: a face parses, calls this, and maps the log it gets back. */
  input: RunInputService;
  /** Between heartbeats of an idle stream; the stream's default when absent. */
  heartbeatMs?: number | undefined;
}

/**
 * One dialect of the API (AG-UI, the AI SDK's chat, the Responses API): its request parsing, its log
 * mapping and its response framing, mounted under /v1 behind the app's authentication. Adding a
 * dialect is a folder with one of these, and its entry in the app's list.
 */
export interface ServerFace {
  /** The dialect's name, as on its runs (`face`) and its threads' conversation ids. */
  readonly name: string;
  mount(app: Hono<FaceEnv>, context: FaceContext): void;
}
