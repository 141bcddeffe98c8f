import { afterAll, beforeAll } from 'vitest';
import {
  describeResponseRecordsConformance,
  describeToolAuditLogConformance,
} from '../test-support/index.ts';
import { openPostgres } from './postgres-pool.ts';
import { PostgresResponseRecords } from './postgres-response-records.ts';
import { PostgresToolAuditLog } from './postgres-tool-audit-log.ts';
import { createTestDatabase, postgresForTests, type TestDatabase } from './test-support/index.ts';

const hasPostgres = await postgresForTests();
let database: TestDatabase | undefined;

beforeAll(async () => {
  if (hasPostgres) database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

async function pool() {
  if (database === undefined) throw new Error('no test database');
  return openPostgres(database.url, { max: 2 });
}

describeToolAuditLogConformance(
  'PostgresToolAuditLog',
  async () => {
    const shared = await pool();
    const log = await PostgresToolAuditLog.open(shared);
    await shared.query('TRUNCATE tool_audit');
    return { log, close: () => shared.end() };
  },
  { skip: !hasPostgres },
);

describeResponseRecordsConformance(
  'PostgresResponseRecords',
  async () => {
    const shared = await pool();
    const records = await PostgresResponseRecords.open(shared);
    await shared.query('TRUNCATE responses');
    return { records, close: () => shared.end() };
  },
  { skip: !hasPostgres },
);
