import { MemoryRunStore } from './memory-run-store.ts';
import { describeRunStoreConformance } from './test-support/index.ts';

describeRunStoreConformance('MemoryRunStore', async ({ now }) => ({
  store: new MemoryRunStore({ now }),
  close: async () => {},
}));
