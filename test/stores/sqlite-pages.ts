/**
 * A table of rows of about a page each, for the tests that fill a WAL page
 * by page: every row written is one WAL frame.
 */
import type Database from 'better-sqlite3';

export const PAGE_BYTES = 4_096;

/** Creates the table; the function returned writes `count` rows in one commit. */
export function pagesTable(db: Database.Database): (count: number) => void {
  db.exec('CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO pages (body) VALUES (?)');
  return db.transaction((count: number) => {
    for (let i = 0; i < count; i++) insert.run(Buffer.alloc(PAGE_BYTES - 200, i % 251));
  });
}
