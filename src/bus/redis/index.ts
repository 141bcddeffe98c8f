/** The bus on Redis (ioredis): connections that fail fast, and the event log on Redis Streams. */

export * from './redis-bus.ts';
export * from './redis-connection.ts';
export * from './redis-control-channel.ts';
export * from './redis-event-log.ts';
