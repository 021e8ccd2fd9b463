/**
 * The back office's staff accounts and audit log on SQLite (src/staff's
 * SqliteStaff): each change with its audit row in one savepoint of the
 * turn, and the audit row of a call that changed nothing joining the turn.
 */
import type { AuditEntry, StaffListing, StaffTokenFound } from '../../../access/staff.js';
import type { Refusal } from '../../../protocol/errors.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from '../../../staff/staff-commands.js';
import type { ProviderDatabase } from './provider-database.js';

export class StaffAudit {
  constructor(private readonly database: ProviderDatabase) {}

  async findStaffToken(tokenHash: string): Promise<StaffTokenFound | undefined> {
    return this.database.staff.findStaffToken(tokenHash) ?? undefined;
  }

  async addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal> {
    return this.database.savepoint(() => this.database.staff.addStaff(command));
  }

  async revokeStaff(command: RevokeStaffCommand): Promise<StaffRevoked | Refusal> {
    return this.database.savepoint(() => this.database.staff.revokeStaff(command));
  }

  async listStaff(): Promise<StaffListing[]> {
    return this.database.staff.listStaff();
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    this.database.write();
    this.database.staff.appendAudit(entry);
  }

  async listAudit(page: AuditPageRequest, operators: readonly string[] | null): Promise<AuditPage> {
    return this.database.staff.listAudit(page, operators);
  }
}
