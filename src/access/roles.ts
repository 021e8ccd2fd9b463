/**
 * Who may do what in either back office: the staff roles, the actions an
 * admin route declares it needs, and which roles hold each action. Pure
 * data and functions, no I/O, shared by the operator and the provider, so
 * that a role means the same on both sides.
 *
 * Roles nest: each holds every action of the one before it.
 * - read-only: reads, nothing else.
 * - support: plus what moves no money: block and unblock players, make
 *   launch keys, send an outbox item again.
 * - payments: plus money: adjustments, deposits and withdrawals, opening
 *   balances, payouts, settling an outbox item by hand, campaigns; each
 *   call within the role's limit (limits.ts).
 * - admin: everything, managing staff, reading the audit log and the
 *   provider's verify of its records included.
 */

export const ROLES = ['read-only', 'support', 'payments', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What an admin route does, as the route table declares it. Each route
 * names exactly one; a route that moves money names `money.move` (or the
 * handler asks for it once the amount is known, as a new player's opening
 * balance does).
 */
const ACTIONS = {
  /** Any listing or item of the back office. */
  read: 'read-only',
  /** Players: create one without money, block, unblock. */
  'players.manage': 'support',
  /** A one-time launch key for a player. */
  'launch-keys.create': 'support',
  /** Send an outbox item again now. */
  'outbox.retry': 'support',
  /** Book money: adjustments, opening balances, payouts. */
  'money.move': 'payments',
  /** Settle an outbox item by hand: tells the ledger money moved. */
  'outbox.resolve': 'payments',
  /** Free-round campaigns: each round is a bet the provider pays for. */
  'campaigns.manage': 'payments',
  /** Staff accounts and their tokens. */
  'staff.manage': 'admin',
  /** The audit log: who did what. */
  'audit.read': 'admin',
  /**
   * The provider's verify of its whole records (GET /admin/verify): every
   * operator's rounds, items and payouts read on one snapshot, seconds to
   * minutes of the database's time, and findings that name any of them.
   * An oversight of the whole, as the audit log is.
   */
  'records.verify': 'admin',
  /** Integrations: the studios that call the wallet, their secrets, tokens and states. */
  'integrations.manage': 'admin',
} as const satisfies Record<string, Role>;
export type Action = keyof typeof ACTIONS;

/** The rank of each role: a role holds the actions of every role ranked at or below it. */
const RANK: Readonly<Record<Role, number>> = Object.fromEntries(ROLES.map((role, i) => [role, i])) as Record<Role, number>;

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isAction(value: unknown): value is Action {
  return typeof value === 'string' && Object.hasOwn(ACTIONS, value);
}

/** Whether a role may do an action. */
export function allows(role: Role, action: Action): boolean {
  return RANK[role] >= RANK[ACTIONS[action]];
}

/** The least role that may do an action, for a refusal's detail. */
export function leastRoleFor(action: Action): Role {
  return ACTIONS[action];
}
