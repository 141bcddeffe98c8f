import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.ts';
import { SqliteRunStore } from './sqlite-run-store.ts';
import { SqliteToolAuditLog } from './sqlite-tool-audit-log.ts';
import { auditEntry, describeToolAuditLogConformance } from './test-support/index.ts';
import { MemoryToolAuditLog } from './tool-audit-log.ts';

function temporaryFile(): { path: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'runstream-audit-'));
  return { path: join(directory, 'runstream.db'), remove: () => rmSync(directory, { recursive: true }) };
}

describeToolAuditLogConformance('MemoryToolAuditLog', async () => ({
  log: new MemoryToolAuditLog(),
  close: async () => {},
}));

describeToolAuditLogConformance('SqliteToolAuditLog on a file', async () => {
  const file = temporaryFile();
  const database = openDatabase(file.path);
  return {
    log: new SqliteToolAuditLog(database),
    close: async () => {
      database.close();
      file.remove();
    },
  };
});

describe('SqliteToolAuditLog', () => {
  it('shares the file with the run store, keeps its entries across a reopen, and creates its table once', async () => {
    const file = temporaryFile();
    try {
      const database = openDatabase(file.path);
      new SqliteRunStore(database);
      await new SqliteToolAuditLog(database).record(auditEntry());
      database.close();
      const reopened = openDatabase(file.path);
      const log = new SqliteToolAuditLog(reopened);
      new SqliteToolAuditLog(reopened);
      expect(await log.list({ userId: 'usr_ada' })).toEqual([auditEntry()]);
      reopened.close();
    } finally {
      file.remove();
    }
  });
});
