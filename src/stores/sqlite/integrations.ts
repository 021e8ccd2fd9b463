/**
 * The stored integrations on SQLite (integration-schema.ts). Every method
 * runs on the writer, inside the database transaction its caller opened (a
 * write behind its own savepoint), so that a change, the version's move and
 * its audit row commit together or not at all. PostgreSQL's
 * postgres/integrations.ts does the same on its tables.
 */
import type Database from 'better-sqlite3';
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
import type { SqliteStaff } from '../../staff/sqlite-staff.js';
import type {
  AddIntegrationCommand,
  IntegrationChanged,
  IntegrationRemoved,
  IntegrationsListing,
  RemoveIntegrationCommand,
  UpdateIntegrationCommand,
} from '../store.js';
import { INTEGRATION_COLUMNS, integrationOf, recordOf, type IntegrationRecord } from '../integration-schema.js';

function prepareStatements(db: Database.Database) {
  // Times, revisions and the version stay well within a double: plain numbers, not the connection's bigints.
  const prepare = (text: string) => db.prepare(text).safeIntegers(false);
  return {
    all: prepare(`SELECT ${INTEGRATION_COLUMNS} FROM integrations ORDER BY id`),
    one: prepare(`SELECT ${INTEGRATION_COLUMNS} FROM integrations WHERE id = ?`),
    count: prepare('SELECT count(*) FROM integrations').pluck(true),
    version: prepare('SELECT version FROM integrations_version WHERE one = 1').pluck(true),
    bump: prepare('UPDATE integrations_version SET version = version + 1 WHERE one = 1'),
    insert: prepare(`INSERT INTO integrations (${INTEGRATION_COLUMNS}) VALUES (@id, @name, @state, @secret_sealed, @secret_next_sealed,
      @token_hashes, @ranges, @provider_url, @created_at, @updated_at, @revision)`),
    update: prepare(`UPDATE integrations SET name = @name, state = @state, secret_sealed = @secret_sealed,
      secret_next_sealed = @secret_next_sealed, token_hashes = @token_hashes, ranges = @ranges, provider_url = @provider_url,
      updated_at = @updated_at, revision = @revision WHERE id = @id`),
    remove: prepare('DELETE FROM integrations WHERE id = ?'),
  };
}

export class SqliteIntegrations {
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(
    db: Database.Database,
    private readonly staff: SqliteStaff,
  ) {
    this.statements = prepareStatements(db);
  }

  list(): IntegrationsListing {
    const integrations = (this.statements.all.all() as IntegrationRecord[]).map(integrationOf);
    return { version: this.version(), integrations };
  }

  version(): number {
    return this.statements.version.get() as number;
  }

  add(command: AddIntegrationCommand): IntegrationChanged | Refusal {
    const { id } = command.integration;
    if (this.statements.one.get(id)) return integrationExists(id);
    if ((this.statements.count.get() as number) >= INTEGRATIONS_MAX) return integrationsFull();
    const integration: StoredIntegration = { ...command.integration, createdAt: command.now, updatedAt: command.now, revision: 1 };
    this.statements.insert.run(recordOf(integration));
    this.statements.bump.run();
    return this.staff.audited(command.audit, { ok: true, integration: this.read(id)! });
  }

  update(command: UpdateIntegrationCommand): IntegrationChanged | Refusal {
    const stored = this.read(command.id);
    if (!stored) return integrationNotFound(command.id);
    if (stored.revision !== command.revision) return integrationMovedOn(command.id, command.revision);
    this.statements.update.run(recordOf(withChanges(stored, command.changes, command.now)));
    this.statements.bump.run();
    return this.staff.audited(command.audit, { ok: true, integration: this.read(command.id)! });
  }

  remove(command: RemoveIntegrationCommand): IntegrationRemoved | Refusal {
    if (this.statements.remove.run(command.id).changes === 0) return integrationNotFound(command.id);
    this.statements.bump.run();
    return this.staff.audited(command.audit, { ok: true, id: command.id });
  }

  private read(id: string): StoredIntegration | undefined {
    const record = this.statements.one.get(id) as IntegrationRecord | undefined;
    return record && integrationOf(record);
  }
}
