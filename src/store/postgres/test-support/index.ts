/** Test helpers for the PostgreSQL adapters: a database per test file on the machine's server. */
export * from './test-database.ts';
