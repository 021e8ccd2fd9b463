/**
 * The provider store's PostgreSQL schema: the same tables as SQLite
 * (../sqlite/migrations.ts), in the schema the database URL's search_path
 * names, numbered apart from the wallet's and run by the shared runner
 * (src/platform/postgres/migrate.ts), under its advisory lock, so that
 * several provider nodes starting together migrate once. The outbox's table
 * is one of the versions, so that a round or a payout and its request
 * commit in one transaction.
 *
 * Money, times and ids are `bigint`: amounts are integer minor units, and
 * int8 holds every amount a currency's minor units can reach (9.2e18)
 * exactly, in eight bytes, compared and summed as integers; `numeric` would
 * admit fractions the rules never produce and cost more on every write.
 * The store reads them as text and converts them to bigint (amounts) or
 * checked safe integers (ids, times).
 */
import { STAFF_SCHEMA_POSTGRES } from '../../../staff/staff-schema.js';
import type { Migration } from '../../../platform/postgres/migrate.js';
import { OUTBOX_MIGRATION } from '../../../dispatch/postgres/outbox.js';
import { reelsMigrationSql } from '../reels-migration.js';
import { BODY_ONCE_MIGRATION, SEALED_SEEDS_MIGRATION } from '../provider-store.js';

export const POSTGRES_PROVIDER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'round-log',
    sql: `
CREATE TABLE game_sessions (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id          text NOT NULL UNIQUE,
  -- One game session per launch: reopening a launch URL finds this row, on whichever node.
  launch_id           text NOT NULL UNIQUE,
  mode                text NOT NULL CHECK (mode IN ('real', 'fun')),
  operator_id         text NOT NULL,
  wallet_id           text,
  game                text NOT NULL,
  player_id           text,
  operator_session_id text,
  currency            text NOT NULL,
  country             text,
  language            text NOT NULL,
  -- Minor units: the fun balance held here, or the last balance the operator answered.
  balance             bigint NOT NULL CHECK (balance >= 0),
  -- The committed seed of the next round (hex) and the rounds played so far.
  server_seed         text NOT NULL,
  nonce               bigint NOT NULL CHECK (nonce >= 0),
  created_at          bigint NOT NULL,
  last_active_at      bigint NOT NULL
);
-- A payout names the player's latest real session at the operator.
CREATE INDEX game_sessions_by_player ON game_sessions (operator_id, player_id, last_active_at) WHERE mode = 'real';
`,
  },
  {
    version: 2,
    name: OUTBOX_MIGRATION.name,
    sql: OUTBOX_MIGRATION.sql,
  },
  {
    version: 3,
    name: 'rounds-campaigns-payouts',
    sql: `
CREATE TABLE rounds (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  round_id          text NOT NULL UNIQUE,
  session_pk        bigint NOT NULL REFERENCES game_sessions (id),
  mode              text NOT NULL CHECK (mode IN ('real', 'fun')),
  operator_id       text NOT NULL,
  player_id         text,
  game              text NOT NULL,
  currency          text NOT NULL,
  bet               bigint NOT NULL CHECK (bet > 0),
  win               bigint NOT NULL CHECK (win >= 0),
  bet_tx_id         text UNIQUE,
  win_tx_id         text UNIQUE,
  campaign_id       text,
  campaign_finished boolean,
  chance_pct        integer NOT NULL,
  threshold         integer NOT NULL,
  roll              integer NOT NULL,
  server_seed       text NOT NULL,
  server_seed_hash  text NOT NULL,
  client_seed       text NOT NULL,
  nonce             bigint NOT NULL,
  -- Real rounds: the exact /transaction body, resent byte for byte.
  request_body      text,
  status            text NOT NULL CHECK (status IN ('pending', 'settled', 'refused')),
  refusal_code      text,
  refusal_detail    text,
  balance_after     bigint,
  attempts          integer NOT NULL DEFAULT 0,
  -- A real round's request in the outbox: its final outcome settles or refuses the round.
  dispatch_item_id  bigint UNIQUE REFERENCES dispatch_items (id),
  created_at        bigint NOT NULL,
  settled_at        bigint
);
CREATE INDEX rounds_by_session ON rounds (session_pk, id);
CREATE INDEX rounds_pending ON rounds (session_pk) WHERE status = 'pending';
CREATE INDEX rounds_by_campaign ON rounds (campaign_id, operator_id, player_id) WHERE campaign_id IS NOT NULL;

CREATE TABLE campaigns (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  campaign_id  text NOT NULL UNIQUE,
  operator_id  text NOT NULL,
  game         text NOT NULL,
  currency     text NOT NULL,
  bet          bigint NOT NULL CHECK (bet > 0),
  rounds       integer NOT NULL CHECK (rounds > 0),
  expires_at   bigint,
  created_at   bigint NOT NULL
);

CREATE TABLE campaign_players (
  campaign_pk  bigint NOT NULL REFERENCES campaigns (id),
  player_id    text NOT NULL,
  PRIMARY KEY (campaign_pk, player_id)
);
CREATE INDEX campaign_players_by_player ON campaign_players (player_id);

-- A tournament prize: written with its /payout request in the outbox, in one transaction; the request's final outcome finishes it.
CREATE TABLE payouts (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  payout_id           text NOT NULL UNIQUE,
  operator_id         text NOT NULL,
  player_id           text NOT NULL,
  currency            text NOT NULL,
  -- Minor units of the currency.
  amount              bigint NOT NULL CHECK (amount > 0),
  campaign_id         text NOT NULL,
  -- The operator's session of the player the request names (docs/protocol.md §7).
  operator_session_id text NOT NULL,
  dispatch_item_id    bigint NOT NULL UNIQUE REFERENCES dispatch_items (id),
  status              text NOT NULL CHECK (status IN ('pending', 'paid', 'refused')),
  balance_after       bigint,
  refusal_code        text,
  refusal_detail      text,
  created_at          bigint NOT NULL,
  settled_at          bigint
);
CREATE INDEX payouts_by_status ON payouts (status, id);
`,
  },
  { version: 4, name: 'reels-rounds', sql: reelsMigrationSql({ int: 'integer', money: 'bigint' }) },
  {
    version: 5,
    name: SEALED_SEEDS_MIGRATION,
    sql: `
-- A session's next seed is kept sealed under a key outside the database, with its commitment (seed-keyring.ts).
-- The plain seeds go: every copy of the database made before held them, so their commitments end here;
-- the store gives each session a fresh sealed seed right after (sealPlainSeeds).
ALTER TABLE game_sessions DROP COLUMN server_seed;
ALTER TABLE game_sessions ADD COLUMN server_seed_sealed text;
ALTER TABLE game_sessions ADD COLUMN server_seed_hash text;

-- A round's seed is null until revealed; meanwhile it is sealed for the round.
ALTER TABLE rounds ALTER COLUMN server_seed DROP NOT NULL;
ALTER TABLE rounds ADD COLUMN server_seed_sealed text;

-- What the sealing at start looks for, found without reading every row (both stay empty once it has run).
CREATE INDEX game_sessions_unsealed ON game_sessions (id) WHERE server_seed_sealed IS NULL;
CREATE INDEX rounds_unsealed ON rounds (id) WHERE kind = 'reels' AND server_seed IS NOT NULL AND free_spins_played < free_spins;
`,
  },
  // Named staff accounts of the back office with their scopes, their tokens as SHA-256 hashes only, and the
  // append-only audit log (src/staff/staff-schema.ts), shared by every node.
  { version: 6, name: 'staff', sql: STAFF_SCHEMA_POSTGRES },
  {
    version: 7,
    name: BODY_ONCE_MIGRATION,
    sql: `
-- A request's body is kept once, in its outbox item (dispatch_items.body): a real round's and an enqueued reels call's own copy goes
-- where it is the item's byte for byte; the readers join the item.
UPDATE rounds r SET request_body = NULL FROM dispatch_items d
  WHERE d.id = r.dispatch_item_id AND r.kind = 'dice' AND r.request_body IS NOT NULL AND d.body = convert_to(r.request_body, 'UTF8');

-- Waiting: the exact body, fixed when the round was written. Enqueued: NULL, the item holds it.
ALTER TABLE round_calls ALTER COLUMN request_body DROP NOT NULL;
UPDATE round_calls c SET request_body = NULL FROM dispatch_items d
  WHERE d.id = c.dispatch_item_id AND c.request_body IS NOT NULL AND d.body = convert_to(c.request_body, 'UTF8');
ALTER TABLE round_calls ADD CONSTRAINT round_calls_body_kept CHECK (request_body IS NOT NULL OR dispatch_item_id IS NOT NULL);
`,
  },
];
