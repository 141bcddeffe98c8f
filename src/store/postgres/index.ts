/**
 * The store on PostgreSQL, for N instances sharing one database: the pool, versioned migrations
 * under an advisory lock, and the `RunStore`, tool audit log and Responses records over it.
 * Selected by `RUNSTREAM_DATABASE_URL`; the SQLite file stays the default.
 */
export * from './postgres-migrations.ts';
export * from './postgres-pool.ts';
export * from './postgres-response-records.ts';
export * from './postgres-run-store.ts';
export * from './postgres-store.ts';
export * from './postgres-tool-audit-log.ts';
