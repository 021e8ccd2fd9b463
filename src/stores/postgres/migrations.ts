/**
 * Versioned schema migrations for PostgreSQL, applied in order at start. A
 * version, once released, never changes: a new change is a new version.
 *
 * Each store numbers its own migrations: a number names a change to this
 * store's schema, not to SQLite's. Both begin with the ledger as version 1;
 * after that they part, because their cost models differ (SQLite's version
 * 2 trades its by-player indexes for per-player chains, which PostgreSQL
 * does not need). Here: 1 ledger, 2 wallet versions, 3 refused
 * transactions, 4 transfers by time, 5 launch-key digests, 6 staff,
 * 7 integrations, 8 session integrations. SQLite (sqlite/migrations.ts): 1 ledger, 2 per-player
 * chains, 3 id indexes, 4 refused transactions, 5 transfers by time,
 * 6 launch-key digests, 7 staff, 8 integrations, 9 session integrations.
 *
 * Layout: the same tables as SQLite. Every table has a bigint identity key,
 * each random UUID lives in exactly one unique index (native `uuid`, 16
 * bytes), money is int8 minor units. Player wallets keep their balance in
 * `accounts.balance`; the operator's own accounts are derived by summing
 * transfers, so no request ever updates a shared row.
 *
 * No foreign keys, as in SQLite but for a sharper reason: a foreign-key check
 * takes a KEY SHARE lock on the referenced row, and every bet references its
 * game's account, so all bets of a game would lock one hot row. Every row is
 * written by the ledger (ledger-transfers.ts, ledger-players.ts), and `verify` checks the references.
 */
import type postgres from 'postgres';
import { migrate as migrateSchema, type Migration } from '../../platform/postgres/migrate.js';
import { STAFF_SCHEMA_POSTGRES } from '../../staff/staff-schema.js';
import { INTEGRATIONS_SCHEMA_POSTGRES } from '../integration-schema.js';

export type { Migration };

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
-- Player rows are updated on every bet: room on the page keeps those updates HOT (no index writes).
CREATE TABLE accounts (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('player', 'game', 'campaign', 'tournament', 'cash')),
  ref         text NOT NULL,
  currency    text NOT NULL,
  -- Kept in step for player wallets only; other accounts are derived from transfers.
  balance     bigint CHECK (balance IS NULL OR balance >= 0),
  created_at  bigint NOT NULL,
  UNIQUE (kind, ref, currency)
) WITH (fillfactor = 70);

CREATE TABLE players (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  player_id      text NOT NULL UNIQUE,
  account_id     bigint NOT NULL UNIQUE,
  currency       text NOT NULL,
  country        text,
  blocked        boolean NOT NULL DEFAULT false,
  blocked_reason text,
  created_at     bigint NOT NULL
);

CREATE TABLE sessions (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid           uuid NOT NULL UNIQUE,
  player_pk      bigint NOT NULL,
  game           text NOT NULL,
  created_at     bigint NOT NULL,
  last_active_at bigint NOT NULL
) WITH (fillfactor = 70);

CREATE TABLE launch_keys (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key         text NOT NULL UNIQUE,
  player_pk   bigint NOT NULL,
  game        text NOT NULL,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  session_pk  bigint
);

CREATE TABLE rounds (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid        uuid NOT NULL UNIQUE,
  player_pk   bigint NOT NULL,
  game        text NOT NULL,
  finished    boolean NOT NULL DEFAULT false,
  created_at  bigint NOT NULL,
  finished_at bigint
);
CREATE INDEX rounds_by_player ON rounds (player_pk, id);

CREATE TABLE transfers (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid              uuid NOT NULL UNIQUE,
  kind              text NOT NULL CHECK (kind IN ('bet', 'win', 'payout', 'deposit', 'withdrawal')),
  player_pk         bigint NOT NULL,
  debit_account_id  bigint NOT NULL,
  credit_account_id bigint NOT NULL,
  amount            bigint NOT NULL CHECK (amount >= 0),
  jp_amount         bigint NOT NULL DEFAULT 0 CHECK (jp_amount >= 0 AND jp_amount <= amount),
  free_bet          boolean NOT NULL DEFAULT false,
  round_pk          bigint,
  campaign_uuid     uuid,
  regulatory        text,
  note              text,
  created_at        bigint NOT NULL,
  CHECK (debit_account_id <> credit_account_id)
);
CREATE INDEX transfers_by_player ON transfers (player_pk, id);

CREATE TABLE campaign_closures (
  campaign_uuid uuid NOT NULL,
  player_pk     bigint NOT NULL,
  closed_at     bigint NOT NULL,
  PRIMARY KEY (campaign_uuid, player_pk)
);
`,
  },
  {
    version: 2,
    name: 'wallet versions',
    // A constant default: PostgreSQL 11 and later add the column without rewriting the table.
    sql: `
-- One more on every write of a player's state (balance, block, rounds, session activity), under the
-- wallet row's lock: a node that remembers the player at a version writes from memory only while it holds.
ALTER TABLE accounts ADD COLUMN version bigint NOT NULL DEFAULT 0;
`,
  },
  {
    version: 3,
    name: 'refused transactions',
    sql: `
-- docs/protocol.md §6.4: the transaction ids of a request the wallet rules refused, with what the request
-- said of each (compared on a repeat) and the refusal it was answered.
CREATE TABLE refused_transactions (
  uuid        uuid PRIMARY KEY,
  player_pk   bigint NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('bet', 'win')),
  player_id   text NOT NULL,
  round_uuid  uuid NOT NULL,
  amount      bigint NOT NULL CHECK (amount >= 0),
  jp_amount   bigint NOT NULL CHECK (jp_amount >= 0 AND jp_amount <= amount),
  code        text NOT NULL,
  detail      text NOT NULL,
  created_at  bigint NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'transfers by time',
    // Not CONCURRENTLY: migrations run in one database transaction, so bookings wait while the index is
    // built over the transfers already stored; on a large ledger, apply it with `wagerlink operator migrate`
    // at a quiet hour.
    sql: `
-- The back office's GGR report (GET /admin/ggr) reads the bets and wins of a span of days; without this
-- index each report read every transfer ever booked. created_at follows the clock: new entries append.
CREATE INDEX transfers_by_time ON transfers (created_at);
`,
  },
  {
    version: 5,
    name: 'launch key digests',
    // A launch key is a bearer credential: the table keeps its SHA-256 digest (launchKeyDigest in
    // src/ledger/rules.ts, which PostgreSQL's sha256() of the key's UTF-8 bytes equals), never the key. The
    // table is copied rather than altered: an UPDATE and a DROP COLUMN would leave every key in the live rows
    // (a dropped column stays on disk until each row is rewritten), and the dropped table's files are removed
    // at commit. Nothing refers to a launch key's row id, and the ids are kept all the same.
    sql: `
CREATE TABLE launch_keys_v5 (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_hash    bytea NOT NULL UNIQUE,
  player_pk   bigint NOT NULL,
  game        text NOT NULL,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  session_pk  bigint
);
INSERT INTO launch_keys_v5 (id, key_hash, player_pk, game, created_at, expires_at, session_pk) OVERRIDING SYSTEM VALUE
  SELECT id, sha256(convert_to(key, 'UTF8')), player_pk, game, created_at, expires_at, session_pk FROM launch_keys ORDER BY id;
SELECT setval(pg_get_serial_sequence('launch_keys_v5', 'id'), COALESCE((SELECT max(id) FROM launch_keys_v5), 0) + 1, false);
DROP TABLE launch_keys;
ALTER TABLE launch_keys_v5 RENAME TO launch_keys;
ALTER INDEX launch_keys_v5_pkey RENAME TO launch_keys_pkey;
ALTER INDEX launch_keys_v5_key_hash_key RENAME TO launch_keys_key_hash_key;
ALTER SEQUENCE launch_keys_v5_id_seq RENAME TO launch_keys_id_seq;
`,
  },
  {
    version: 6,
    name: 'staff',
    // Named staff accounts of the back office, their tokens kept only as SHA-256 hashes (access/staff-token.ts),
    // and the audit log of every state-changing back-office call, append-only by the database's own triggers.
    sql: STAFF_SCHEMA_POSTGRES,
  },
  {
    version: 7,
    name: 'integrations',
    // The studios that call the wallet, each with its own sealed secrets and hashed tokens, and the version every
    // node polls to follow their changes (integration-schema.ts).
    sql: INTEGRATIONS_SCHEMA_POSTGRES,
  },
  {
    version: 8,
    name: 'session integrations',
    // A session belongs to the integration that opened it (docs/protocol.md §2.6): another's token may not bet
    // on it. Sessions opened before belong to the environment's integration, the only one there was. A
    // constant default: PostgreSQL adds the column without rewriting the table.
    sql: `
ALTER TABLE sessions ADD COLUMN integration_id text NOT NULL DEFAULT 'default';
`,
  },
  {
    version: 9,
    name: 'studio rounds',
    // A round, and a campaign's closure for a player, belong to the integration whose call made them
    // (docs/protocol.md §2.6): another studio's call may not add to the round, and the same campaign id at two
    // studios is two campaigns. Rows made before belong to the environment's integration. Constant defaults:
    // neither table is rewritten; the closures' key gains the integration.
    sql: `
ALTER TABLE rounds ADD COLUMN integration_id text NOT NULL DEFAULT 'default';
ALTER TABLE campaign_closures ADD COLUMN integration_id text NOT NULL DEFAULT 'default';
ALTER TABLE campaign_closures DROP CONSTRAINT campaign_closures_pkey;
ALTER TABLE campaign_closures ADD PRIMARY KEY (campaign_uuid, player_pk, integration_id);
`,
  },
  {
    version: 10,
    name: 'launch key integrations',
    // A launch key may name the integration whose game it launches (docs/protocol.md §2.6): only that one's
    // /authenticate opens it. Null: any, as for every key made before.
    sql: `
ALTER TABLE launch_keys ADD COLUMN integration_id text;
`,
  },
];

/**
 * Applies the wallet's migrations not yet applied, all in one database
 * transaction, under an advisory lock (src/platform/postgres/migrate.ts).
 * Returns the versions applied.
 */
export async function migrate(sql: postgres.Sql): Promise<number[]> {
  return migrateSchema(sql, MIGRATIONS);
}
