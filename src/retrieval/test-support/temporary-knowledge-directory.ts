import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { openDatabase } from '../../store/index.ts';

export interface TemporaryKnowledgeDirectory {
  /** The test's own folder; knowledge files go under `knowledge/` in it. */
  readonly directory: string;
  /** A real SQLite file in that folder, open for the test. */
  readonly database: Database;
  /** Writes a knowledge file at `knowledge/<relativePath>`, making its folders. */
  write(relativePath: string, content: string | Uint8Array): string;
}

/**
 * A fresh folder and SQLite file for each test of the calling suite, closed and removed after it:
 * the retrieval tests' shared setup. Call it at the top of a `describe` (or of the file).
 */
export function temporaryKnowledgeDirectory(prefix: string): TemporaryKnowledgeDirectory {
  let directory: string | undefined;
  let database: Database | undefined;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), prefix));
    database = openDatabase(join(directory, 'runstream.db'));
  });
  afterEach(() => {
    database?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    database = undefined;
    directory = undefined;
  });
  const current = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`${name} is only there inside a test`);
    return value;
  };
  return {
    get directory() {
      return current(directory, 'the temporary directory');
    },
    get database() {
      return current(database, 'the temporary database');
    },
    write(relativePath, content) {
      const path = join(current(directory, 'the temporary directory'), 'knowledge', relativePath);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
  };
}
