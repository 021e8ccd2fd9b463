/**
 * The backends the store contract suite runs against. `STORES=sqlite`
 * narrows the list (comma-separated names).
 */
import { join } from 'node:path';
import type { RulesConfig } from '../../src/ledger/rules.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import type { WalletStore } from '../../src/stores/store.js';
import { tempDir } from '../helpers.js';

export interface Backend {
  name: string;
  /** Why the backend cannot run here, or undefined when it can. */
  unavailable?: string;
  open(rules?: RulesConfig): Promise<{ store: WalletStore; cleanup: () => Promise<void> }>;
}

const ALL: Backend[] = [
  ...(['thread', 'inline'] as const).map(
    (placement): Backend => ({
      // The same SQLite store, its group committer on a writer thread or in the calling thread.
      name: placement === 'thread' ? 'sqlite' : 'sqlite-inline',
      async open(rules) {
        const { dir, cleanup } = tempDir();
        const store = await SqliteStore.open({ path: join(dir, 'wallet.db'), placement, ...(rules ? { rules } : {}) });
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
];

export const BACKENDS: Backend[] = (() => {
  const wanted = process.env.STORES?.split(',').map((name) => name.trim()).filter(Boolean);
  return wanted ? ALL.filter((backend) => wanted.includes(backend.name)) : ALL;
})();
