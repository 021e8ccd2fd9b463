/**
 * How much money one call of a staff account may move, by role and
 * currency. A limit is exact: decimal text per currency, turned into minor
 * units with the currency's decimals, never a float. A call over its role's
 * limit is refused whole (STAFF_LIMIT_EXCEEDED) and changes nothing; a
 * larger sum takes an account of a higher role, or several calls, each in
 * the audit log.
 */
import { decimalFromString, type Decimal } from '../protocol/money.js';
import type { Role } from './roles.js';

/** Limits of one role: decimal text per currency code, and `*` for every currency not named. */
type RoleLimits = Readonly<Record<string, string>>;
/** Limits per role; a role without an entry, or a currency without one and no `*`, has no limit. */
export type StaffLimits = Readonly<Partial<Record<Role, RoleLimits>>>;

/**
 * The defaults. A payments clerk books the everyday: deposits, refunds,
 * prizes, up to 5,000 in a fiat currency per call; cryptocurrencies are
 * worth far more per unit, so the common ones have their own. Larger sums
 * are an admin's, who has no limit by default: an admin manages the staff
 * and could make any account anyway, and the configured admin token (an
 * admin) must go on doing what it did. Roles below payments move no money
 * at all (roles.ts), so they need no limit. A deployment sets its own with
 * WAGERLINK_STAFF_LIMITS (operator) or `staffLimits` (provider config),
 * an admin limit included.
 */
export const DEFAULT_STAFF_LIMITS: StaffLimits = {
  payments: { '*': '5000', BTC: '0.1', ETH: '2' },
};

/** The limit of a role in a currency, as decimal text, or undefined when it has none. */
function limitText(limits: StaffLimits, role: Role, currency: string): string | undefined {
  const forRole = limits[role];
  if (forRole === undefined) return undefined;
  return Object.hasOwn(forRole, currency) ? forRole[currency] : forRole['*'];
}

/** Compares two exact decimals: negative, zero or positive as a is less than, equal to or more than b. */
function compareDecimals(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const left = a.units * 10n ** BigInt(scale - a.scale);
  const right = b.units * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Whether an amount is over the role's limit in its currency: undefined
 * when within it (or there is none), else the limit's text. Compared as
 * exact decimals, so the currency's decimals need not be known (the
 * operator's back office learns a player's currency, not its decimals).
 */
export function overLimit(limits: StaffLimits, role: Role, currency: string, amount: Decimal): string | undefined {
  const text = limitText(limits, role, currency);
  if (text === undefined) return undefined;
  const limit = decimalFromString(text);
  if (!limit) throw new Error(`staff limit ${role} ${currency}: "${text}" is not a decimal`);
  return compareDecimals(amount, limit) > 0 ? text : undefined;
}

/** An exact decimal as plain text (12.5, 100), for the audit log. */
export function decimalText(amount: Decimal): string {
  const digits = amount.units.toString().padStart(amount.scale + 1, '0');
  if (amount.scale === 0) return digits;
  const text = `${digits.slice(0, -amount.scale)}.${digits.slice(-amount.scale)}`.replace(/0+$/, '');
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

/**
 * Reads limits written as text, WAGERLINK_STAFF_LIMITS' form:
 * `payments:EUR=2500,*=5000;admin:*=50000`. Each role named replaces its
 * defaults whole; roles not named keep theirs. Throws naming the mistake.
 */
export function parseStaffLimits(text: string, isRoleName: (name: string) => name is Role, base: StaffLimits = DEFAULT_STAFF_LIMITS): StaffLimits {
  const result: Partial<Record<Role, RoleLimits>> = { ...base };
  for (const part of text
    .split(';')
    .map((each) => each.trim())
    .filter((each) => each !== '')) {
    const colon = part.indexOf(':');
    const role = part.slice(0, colon).trim();
    if (colon < 0 || !isRoleName(role)) throw new Error(`"${part}": must be ROLE:CURRENCY=AMOUNT,... with a role of read-only, support, payments, admin`);
    result[role] = parseRoleLimits(role, part.slice(colon + 1));
  }
  return result;
}

function parseRoleLimits(role: string, text: string): RoleLimits {
  const limits: Record<string, string> = {};
  for (const entry of text
    .split(',')
    .map((each) => each.trim())
    .filter((each) => each !== '')) {
    const match = /^(\*|[A-Z0-9]{2,12})=(\d{1,20}(?:\.\d{1,18})?)$/.exec(entry);
    if (!match) throw new Error(`${role}: "${entry}" must be CURRENCY=AMOUNT (such as EUR=2500.00, or *=5000 for every other currency)`);
    limits[match[1]!] = match[2]!;
  }
  return limits;
}

/** Checks limits given as an object (a config file's): every amount decimal text. Returns the problem, or undefined. */
export function staffLimitsProblem(value: unknown, isRoleName: (name: string) => name is Role): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object of roles';
  for (const [role, limits] of Object.entries(value)) {
    if (!isRoleName(role)) return `${role}: is not a role (read-only, support, payments, admin)`;
    if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) return `${role}: must be an object of currency: "amount"`;
    for (const [currency, amount] of Object.entries(limits)) {
      if (!/^(\*|[A-Z0-9]{2,12})$/.test(currency)) return `${role}.${currency}: is not a currency code or *`;
      if (typeof amount !== 'string' || !decimalFromString(amount)) return `${role}.${currency}: must be decimal text such as "2500.00"`;
    }
  }
  return undefined;
}
