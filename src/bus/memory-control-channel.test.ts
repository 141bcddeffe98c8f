import { MemoryControlChannel } from './memory-control-channel.ts';
import { describeControlChannelConformance } from './test-support/index.ts';

describeControlChannelConformance('MemoryControlChannel', async () => {
  const channel = new MemoryControlChannel();
  return { channel, peer: channel, close: () => channel.close() };
});
