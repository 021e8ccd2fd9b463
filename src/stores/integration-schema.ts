/**
 * The stored integrations (access/integrations.ts) as both backends keep
 * them: one table and one version counter, and their rows read into
 * integrations once for both dialects.
 *
 * - integrations: one row per integration. Its secrets only sealed (under
 *   WAGERLINK_INTEGRATION_KEYS, which the database never holds), its access
 *   tokens only as SHA-256 hashes (a JSON array, oldest first), its caller
 *   ranges as a JSON array. `revision` moves on every change of the row.
 * - integrations_version: one row, whose version moves in the database
 *   transaction of every change of any integration: each node polls it,
 *   one row read, and reads the integrations again when it moved.
 */
import type { IntegrationState, StoredIntegration } from '../access/integrations.js';

const STATES_CHECK = "state IN ('active', 'paused', 'off')";

export const INTEGRATIONS_SCHEMA_SQLITE = `
CREATE TABLE integrations (
  id                  TEXT PRIMARY KEY,
  name                TEXT NOT NULL,
  state               TEXT NOT NULL CHECK (${STATES_CHECK}),
  secret_sealed       TEXT NOT NULL,
  secret_next_sealed  TEXT,
  token_hashes        TEXT NOT NULL,
  ranges              TEXT NOT NULL,
  provider_url        TEXT,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL,
  revision            INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE integrations_version (
  one      INTEGER PRIMARY KEY CHECK (one = 1),
  version  INTEGER NOT NULL
);
INSERT INTO integrations_version (one, version) VALUES (1, 0);
`;

export const INTEGRATIONS_SCHEMA_POSTGRES = `
CREATE TABLE integrations (
  id                  text PRIMARY KEY,
  name                text NOT NULL,
  state               text NOT NULL CHECK (${STATES_CHECK}),
  secret_sealed       text NOT NULL,
  secret_next_sealed  text,
  token_hashes        text NOT NULL,
  ranges              text NOT NULL,
  provider_url        text,
  created_at          bigint NOT NULL,
  updated_at          bigint NOT NULL,
  revision            bigint NOT NULL
);
CREATE TABLE integrations_version (
  one      integer PRIMARY KEY CHECK (one = 1),
  version  bigint NOT NULL
);
INSERT INTO integrations_version (one, version) VALUES (1, 0);
`;

/** A row of `integrations`, as either driver reads it (PostgreSQL's bigints arrive as text). */
export interface IntegrationRecord {
  id: string;
  name: string;
  state: IntegrationState;
  secret_sealed: string;
  secret_next_sealed: string | null;
  token_hashes: string;
  ranges: string;
  provider_url: string | null;
  created_at: number | string;
  updated_at: number | string;
  revision: number | string;
}

export const INTEGRATION_COLUMNS = 'id, name, state, secret_sealed, secret_next_sealed, token_hashes, ranges, provider_url, created_at, updated_at, revision';

export function integrationOf(record: IntegrationRecord): StoredIntegration {
  return {
    id: record.id,
    name: record.name,
    state: record.state,
    secretSealed: record.secret_sealed,
    secretNextSealed: record.secret_next_sealed,
    tokenHashes: JSON.parse(record.token_hashes) as string[],
    ranges: JSON.parse(record.ranges) as string[],
    providerUrl: record.provider_url,
    createdAt: Number(record.created_at),
    updatedAt: Number(record.updated_at),
    revision: Number(record.revision),
  };
}

/** An integration as a row's values, in INTEGRATION_COLUMNS' order. */
export function recordOf(integration: StoredIntegration): IntegrationRecord {
  return {
    id: integration.id,
    name: integration.name,
    state: integration.state,
    secret_sealed: integration.secretSealed,
    secret_next_sealed: integration.secretNextSealed,
    token_hashes: JSON.stringify(integration.tokenHashes),
    ranges: JSON.stringify(integration.ranges),
    provider_url: integration.providerUrl,
    created_at: integration.createdAt,
    updated_at: integration.updatedAt,
    revision: integration.revision,
  };
}
