/**
 * The backends the store contract suite runs against. `STORES=sqlite`
 * narrows the list (comma-separated names: sqlite, sqlite-inline, postgres);
 * postgres runs when DATABASE_URL is set and is skipped, with the reason,
 * when it is not.
 */
import { join } from 'node:path';
import type { RulesConfig } from '../../src/ledger/rules.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { WalletStore } from '../../src/stores/store.js';
import { tempDir } from '../helpers.js';
import { openPostgresStore, POSTGRES_UNAVAILABLE } from './postgres-fixtures.js';

export interface Backend {
  name: string;
  /** Why the backend cannot run here, or undefined when it can. */
  unavailable?: string;
  open(rules?: RulesConfig): Promise<{ store: WalletStore; cleanup: () => Promise<void> }>;
}

const ALL: Backend[] = [
  // The same SQLite store in each of its configurations: the group committer on
  // a writer thread or inline, commits made durable by a WAL flusher or by COMMIT.
  ...(
    [
      ['sqlite', 'thread', 'full'],
      ['sqlite-inline', 'inline', 'full'],
      ['sqlite-flusher', 'thread', 'flusher'],
    ] as const
  ).map(
    ([name, placement, durability]): Backend => ({
      name,
      async open(rules) {
        const { dir, cleanup } = tempDir();
        const store = await SqliteStore.open({ path: join(dir, 'wallet.db'), placement, durability, ...(rules ? { rules } : {}) });
        return {
          store,
          cleanup: async () => {
            await store.close();
            cleanup();
          },
        };
      },
    }),
  ),
  {
    // A schema of its own in DATABASE_URL's database, dropped afterwards.
    name: 'postgres',
    ...(POSTGRES_UNAVAILABLE ? { unavailable: POSTGRES_UNAVAILABLE } : {}),
    async open(rules) {
      const { store, cleanup } = await openPostgresStore('contract', rules ? { rules } : {});
      return { store, cleanup };
    },
  },
];

export const BACKENDS: Backend[] = (() => {
  const wanted = process.env.STORES?.split(',').map((name) => name.trim()).filter(Boolean);
  return wanted ? ALL.filter((backend) => wanted.includes(backend.name)) : ALL;
})();
