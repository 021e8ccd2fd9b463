/**
 * The stored integrations on PostgreSQL (integration-schema.ts): the same
 * tables and answers as sqlite/integrations.ts. Each write is one database
 * transaction that takes the version row's lock first (the one lock order
 * of these tables), changes the row, moves the version and writes its
 * audit row, so that they commit together or not at all, and two changes
 * never interleave.
 */
import type postgres from 'postgres';
import type { Refusal } from '../../protocol/errors.js';
import {
  INTEGRATIONS_MAX,
  integrationExists,
  integrationMovedOn,
  integrationNotFound,
  integrationsFull,
  withChanges,
  type StoredIntegration,
} from '../../access/integrations.js';
import { audited } from '../../staff/postgres-staff.js';
import type {
  AddIntegrationCommand,
  IntegrationChanged,
  IntegrationRemoved,
  IntegrationsListing,
  RemoveIntegrationCommand,
  UpdateIntegrationCommand,
} from '../store.js';
import { INTEGRATION_COLUMNS, integrationOf, recordOf, type IntegrationRecord } from '../integration-schema.js';

type Sql = postgres.Sql | postgres.TransactionSql;

async function readOne(dbTx: Sql, id: string): Promise<StoredIntegration | undefined> {
  const [record] = await dbTx<IntegrationRecord[]>`SELECT ${dbTx.unsafe(INTEGRATION_COLUMNS)} FROM integrations WHERE id = ${id}`;
  return record && integrationOf(record);
}

/** Takes the version row's lock: every change of the integrations waits here for the one before it. */
async function lockVersion(dbTx: Sql): Promise<void> {
  await dbTx`SELECT 1 FROM integrations_version WHERE one = 1 FOR UPDATE`;
}

async function bump(dbTx: Sql): Promise<void> {
  await dbTx`UPDATE integrations_version SET version = version + 1 WHERE one = 1`;
}

async function write(dbTx: Sql, integration: StoredIntegration, insert: boolean): Promise<void> {
  const r = recordOf(integration);
  if (insert) {
    await dbTx`INSERT INTO integrations (${dbTx.unsafe(INTEGRATION_COLUMNS)}) VALUES (${r.id}, ${r.name}, ${r.state}, ${r.secret_sealed},
      ${r.secret_next_sealed}, ${r.token_hashes}, ${r.ranges}, ${r.provider_url}, ${r.created_at}, ${r.updated_at}, ${r.revision})`;
    return;
  }
  await dbTx`UPDATE integrations SET name = ${r.name}, state = ${r.state}, secret_sealed = ${r.secret_sealed},
    secret_next_sealed = ${r.secret_next_sealed}, token_hashes = ${r.token_hashes}, ranges = ${r.ranges}, provider_url = ${r.provider_url},
    updated_at = ${r.updated_at}, revision = ${r.revision} WHERE id = ${r.id}`;
}

export class PostgresIntegrations {
  constructor(private readonly sql: postgres.Sql) {}

  async list(): Promise<IntegrationsListing> {
    // One snapshot: the version read names exactly the rows read with it.
    return this.sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (dbTx) => {
      const records = await dbTx<IntegrationRecord[]>`SELECT ${dbTx.unsafe(INTEGRATION_COLUMNS)} FROM integrations ORDER BY id COLLATE "C"`;
      return { version: await readVersion(dbTx), integrations: records.map(integrationOf) };
    });
  }

  version(): Promise<number> {
    return readVersion(this.sql);
  }

  async add(command: AddIntegrationCommand): Promise<IntegrationChanged | Refusal> {
    const { id } = command.integration;
    return this.sql.begin(async (dbTx) => {
      await lockVersion(dbTx);
      if (await readOne(dbTx, id)) return integrationExists(id);
      const [counted] = await dbTx<{ count: string }[]>`SELECT count(*) FROM integrations`;
      if (Number(counted!.count) >= INTEGRATIONS_MAX) return integrationsFull();
      await write(dbTx, { ...command.integration, createdAt: command.now, updatedAt: command.now, revision: 1 }, true);
      await bump(dbTx);
      return audited(dbTx, command.audit, { ok: true as const, integration: (await readOne(dbTx, id))! });
    });
  }

  async update(command: UpdateIntegrationCommand): Promise<IntegrationChanged | Refusal> {
    return this.sql.begin(async (dbTx) => {
      await lockVersion(dbTx);
      const stored = await readOne(dbTx, command.id);
      if (!stored) return integrationNotFound(command.id);
      if (stored.revision !== command.revision) return integrationMovedOn(command.id, command.revision);
      await write(dbTx, withChanges(stored, command.changes, command.now), false);
      await bump(dbTx);
      return audited(dbTx, command.audit, { ok: true as const, integration: (await readOne(dbTx, command.id))! });
    });
  }

  async remove(command: RemoveIntegrationCommand): Promise<IntegrationRemoved | Refusal> {
    return this.sql.begin(async (dbTx) => {
      await lockVersion(dbTx);
      const removed = await dbTx`DELETE FROM integrations WHERE id = ${command.id}`;
      if (removed.count === 0) return integrationNotFound(command.id);
      await bump(dbTx);
      return audited(dbTx, command.audit, { ok: true as const, id: command.id });
    });
  }
}

async function readVersion(sql: Sql): Promise<number> {
  const [row] = await sql<{ version: string }[]>`SELECT version FROM integrations_version WHERE one = 1`;
  return Number(row!.version);
}
