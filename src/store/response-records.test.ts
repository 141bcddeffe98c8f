import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './open-database.ts';
import { MemoryResponseRecords } from './response-records.ts';
import { SqliteResponseRecords } from './sqlite-response-records.ts';
import { describeResponseRecordsConformance } from './test-support/index.ts';

describeResponseRecordsConformance('MemoryResponseRecords', async () => ({
  records: new MemoryResponseRecords(),
  close: async () => {},
}));

describeResponseRecordsConformance('SqliteResponseRecords on a file', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-responses-'));
  const database = openDatabase(join(directory, 'runstream.db'));
  return {
    records: new SqliteResponseRecords(database),
    close: async () => {
      database.close();
      rmSync(directory, { recursive: true });
    },
  };
});
