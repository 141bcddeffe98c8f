import { ensureInteropClients } from './interop-clients.ts';

/**
 * Vitest global setup: the dialect tests drive the ecosystem's own clients, which live in `interop/`
 * on a Node 22 binary; install them once, from the lock, before any test file runs.
 */
export default function setup(): void {
  ensureInteropClients();
}
