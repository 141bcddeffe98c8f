import { MemoryEventLog } from './memory-event-log.ts';
import { describeEventLogConformance } from './test-support/index.ts';

describeEventLogConformance('MemoryEventLog', async (options) => {
  const log = new MemoryEventLog(options);
  return { log, peer: log, close: () => log.close() };
});
