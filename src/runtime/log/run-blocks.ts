import type { AgentOptions } from '../agent/agent-options.ts';

/** The blocks an agent adds to its run's log: their ids, and their endings. */
export class RunBlocks {
  readonly #options: Pick<AgentOptions, 'log' | 'newBlockId'>;
  #blockCounter = 0;

  constructor(options: Pick<AgentOptions, 'log' | 'newBlockId'>) {
    this.#options = options;
    this.#blockCounter = options.log.state.blocks.length;
  }

  newBlockId(): string {
    if (this.#options.newBlockId) return this.#options.newBlockId();
    this.#blockCounter += 1;
    return `blk_${this.#blockCounter}`;
  }

  endBlock(blockId: string, status?: 'done' | 'cancelled' | 'interrupted', durationMs?: number): void {
    const { log } = this.#options;
    const block = log.state.blocks.find((candidate) => candidate.blockId === blockId);
    if (block === undefined || block.endedAt !== null) return;
    const endedAt = Date.now();
    log.append({
      type: 'block.ended',
      blockId,
      endedAt,
      durationMs: Math.max(0, Math.round(durationMs ?? endedAt - block.startedAt)),
      ...(status !== undefined ? { status } : {}),
    });
  }
}
