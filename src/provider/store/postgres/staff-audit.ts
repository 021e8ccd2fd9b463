/**
 * The back office's staff accounts and audit log on PostgreSQL (src/staff's
 * PostgresStaff): each change with its audit row in one transaction of its
 * own, and the audit row of a call that changed nothing as one statement.
 */
import type { AuditEntry, StaffListing, StaffTokenFound } from '../../../access/staff.js';
import type { Refusal } from '../../../protocol/errors.js';
import type { AddStaffCommand, AuditPage, AuditPageRequest, RevokeStaffCommand, StaffAdded, StaffRevoked } from '../../../staff/staff-commands.js';
import type { ProviderDatabase } from './provider-database.js';

export class StaffAudit {
  constructor(private readonly database: ProviderDatabase) {}

  async findStaffToken(tokenHash: string): Promise<StaffTokenFound | undefined> {
    return (await this.database.read(this.database.staff.findStaffToken(tokenHash))) ?? undefined;
  }

  addStaff(command: AddStaffCommand): Promise<StaffAdded | Refusal> {
    return this.database.write(this.database.staff.addStaff(command));
  }

  revokeStaff(command: RevokeStaffCommand): Promise<StaffRevoked | Refusal> {
    return this.database.write(this.database.staff.revokeStaff(command));
  }

  listStaff(): Promise<StaffListing[]> {
    return this.database.read(this.database.staff.listStaff());
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await this.database.write(this.database.staff.appendAudit(entry));
  }

  listAudit(page: AuditPageRequest, operators: readonly string[] | null): Promise<AuditPage> {
    return this.database.read(this.database.staff.listAudit(page, operators));
  }
}
