import { afterAll } from 'vitest';
import {
  describeControlChannelConformance,
  redisForTests,
  TEST_REDIS_URL,
  testKeyPrefix,
} from '../test-support/index.ts';
import { openRedis } from './redis-connection.ts';
import { RedisControlChannel } from './redis-control-channel.ts';

const hasRedis = await redisForTests();
const keys = testKeyPrefix();
const opened: { disconnect(): void }[] = [];

afterAll(() => {
  for (const connection of opened) connection.disconnect();
});

describeControlChannelConformance(
  'RedisControlChannel',
  async () => {
    const open = async () => {
      const redis = await openRedis(TEST_REDIS_URL);
      opened.push(redis);
      return new RedisControlChannel({
        redis,
        subscriber: await openRedis(TEST_REDIS_URL),
        keyPrefix: keys.prefix,
      });
    };
    const channel = await open();
    const peer = await open();
    return {
      channel,
      peer,
      async close() {
        await channel.close();
        await peer.close();
      },
    };
  },
  { skip: !hasRedis },
);
