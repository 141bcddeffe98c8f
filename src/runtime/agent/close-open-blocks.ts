import type { RunLog } from '../log/run-log.ts';

/**
 * Close every open text and tool block of a run (text with `textStatus`; tools updated to
 * `cancelled` or `interrupted`); pending confirmation cards expire. Used for stops, crashes, failures.
 */
export function closeOpenBlocks(log: RunLog, textStatus: 'cancelled' | 'interrupted'): void {
  const now = Date.now();
  for (const block of log.state.blocks) {
    if (block.endedAt !== null) continue;
    if (block.kind === 'tool') {
      log.append({
        type: 'block.updated',
        blockId: block.blockId,
        kind: 'tool',
        toolCallId: block.toolCallId,
        status: textStatus,
      });
    } else if (block.kind === 'confirm') {
      if (block.status === 'pending')
        log.append({ type: 'block.updated', blockId: block.blockId, kind: 'confirm', status: 'expired' });
    }
    log.append({
      type: 'block.ended',
      blockId: block.blockId,
      endedAt: now,
      durationMs: Math.max(0, now - block.startedAt),
      ...(block.kind === 'tool' || block.kind === 'confirm' ? {} : { status: textStatus }),
    });
  }
}
