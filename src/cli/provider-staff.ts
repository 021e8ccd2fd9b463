/**
 * `wagerlink provider staff ...` and `provider audit`: the provider's staff
 * accounts and audit log, worked on the provider's own database, opened
 * from its config as `provider serve` opens it (so that they work with the
 * server stopped, and need no admin token). Each change is audited as
 * `cli:<system user>`.
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { isRole, ROLES } from '../access/roles.js';
import { AUDIT_PAGE_DEFAULT, AUDIT_PAGE_MAX, cliActor, type AuditEntry } from '../access/staff.js';
import { checkStaffName, checkTokenDays, newStaffToken, STAFF_TOKEN_DAYS_DEFAULT, tokenExpiresAt } from '../access/staff-token.js';
import { ERRORS, problemJson, type Refusal } from '../protocol/errors.js';
import { stringify } from '../protocol/json.js';
import { readProviderConfig } from '../provider/provider-config.js';
import { openProviderStore } from '../provider/store/open-provider-store.js';
import { seedSealing } from '../provider/seed-keyring.js';
import type { ProviderStore } from '../provider/store/provider-store.js';
import type { Values } from './command-table.js';

export type ProviderStaffAction = 'add' | 'list' | 'revoke' | 'audit';

function print(value: unknown): void {
  process.stdout.write(`${stringify(value)}\n`);
}

function refused(outcome: Refusal): void {
  process.stderr.write(`${problemJson(outcome.code, outcome.detail)}\n`);
  process.exitCode = 1;
}

function cliAudit(command: string, target: string, operators: readonly string[] | null): (status: number, code?: string) => AuditEntry {
  const actor = cliActor(userInfo().username);
  return (status, code) => ({
    at: Date.now(),
    actor,
    tokenId: null,
    method: 'CLI',
    route: command,
    target,
    amount: null,
    currency: null,
    address: null,
    // An account of one operator is that operator's business: its scoped admins see the row.
    operatorId: operators !== null && operators.length === 1 ? operators[0]! : null,
    status,
    code: code ?? null,
  });
}

/** Runs one command; input is checked before the database is opened, so bad input touches nothing. */
// eslint-disable-next-line max-lines-per-function -- the command's options checked in the order its usage lists them, then its one call
export async function providerStaff(action: ProviderStaffAction, arg: string, values: Values, usage: (message: string) => Error): Promise<void> {
  if (values.config === undefined) throw usage('--config FILE is required');
  const config = readProviderConfig(values.config);
  let work: (store: ProviderStore) => Promise<void>;
  switch (action) {
    case 'add': {
      const bad = checkStaffName(arg);
      if (bad) throw usage(bad.replace(/^name: /, 'NAME '));
      const role = values.role!;
      if (!isRole(role)) throw usage(`--role must be one of ${ROLES.join(', ')}, got "${role}"`);
      const days = values['expires-days'] === undefined ? STAFF_TOKEN_DAYS_DEFAULT : Number(values['expires-days']);
      const badDays = checkTokenDays(days);
      if (badDays) throw usage(`--${badDays}`);
      const operators =
        values.operators === undefined
          ? null
          : [
              ...new Set(
                values.operators
                  .split(',')
                  .map((each) => each.trim())
                  .filter((each) => each !== ''),
              ),
            ];
      const configured = new Set(config.operators.map((operator) => operator.operatorId));
      const unknown = operators?.find((operatorId) => !configured.has(operatorId));
      if (unknown !== undefined) throw usage(`--operators: ${unknown} is not an operator of ${values.config}`);
      work = async (store) => {
        const made = newStaffToken(randomBytes);
        const now = Date.now();
        const audit = cliAudit('provider staff add', `staff=${arg} token=${made.tokenId}`, operators);
        const outcome = await store.addStaff({
          name: arg,
          role,
          operators,
          tokenId: made.tokenId,
          tokenHash: made.tokenHash,
          expiresAt: tokenExpiresAt(now, days),
          now,
          audit: audit(201),
        });
        if (!outcome.ok) {
          await store.appendAudit(audit(ERRORS[outcome.code].status, outcome.code));
          return refused(outcome);
        }
        print({ ...outcome.staff, token: made.token });
      };
      break;
    }
    case 'list':
      work = async (store) => print({ items: await store.listStaff() });
      break;
    case 'revoke':
      work = async (store) => {
        const audit = cliAudit('provider staff revoke', `staff=${arg}`, null);
        const outcome = await store.revokeStaff({ nameOrTokenId: arg, now: Date.now(), audit: audit(200) });
        if (!outcome.ok) {
          await store.appendAudit(audit(ERRORS[outcome.code].status, outcome.code));
          return refused(outcome);
        }
        print({ name: outcome.name, revokedTokenIds: outcome.tokenIds });
      };
      break;
    case 'audit': {
      const limit = values.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) throw usage(`--limit must be 1..${AUDIT_PAGE_MAX}`);
      const before = values.cursor === undefined ? undefined : Number(values.cursor);
      if (before !== undefined && !Number.isSafeInteger(before)) throw usage('--cursor must be a nextCursor');
      work = async (store) => print(await store.listAudit({ limit, before }, null));
      break;
    }
  }
  const store = await openProviderStore(config.database, {
    currencies: config.currencies,
    schema: config.databaseSchema,
    postgres: config.postgres,
    // Opening seals what a database upgraded from plain seeds still lacks, as `serve` would.
    seeds: seedSealing(config.seedKeys, randomBytes),
  });
  try {
    await work(store);
    await store.durable();
  } finally {
    await store.close();
  }
}
