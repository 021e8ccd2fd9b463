/**
 * The back offices' access control, the same on both servers: who calls
 * (the configured admin token, or a staff token looked up in the database
 * on every request, so that a revoked or expired one is refused at once on
 * every node), whether their role holds the action the route declares, and
 * the audit row of every state-changing call.
 *
 * Each admin route declares its action in its options
 * (`{ config: { action: 'money.move' } }`), and one hook reads it: a route
 * registered without one makes the app fail to build, so a new route cannot
 * forget it. The routes and their actions are kept on the guard
 * (`routes`), which the tests walk for every role.
 *
 * A call that changes state writes its audit row in the same database
 * transaction as the change (the store operation takes it as an argument,
 * `auditEntry` builds it); every other state-changing call — refused,
 * failed, or one that changed nothing — gets its row from the onSend hook
 * before the answer leaves, with the status and code answered.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allows, isAction, leastRoleFor, type Action } from '../access/roles.js';
import { decimalText, overLimit, type StaffLimits } from '../access/limits.js';
import { adminTokenMatcher, ADMIN_TOKEN_ACTOR, isStaffTokenShape, staffTokenHash } from '../access/staff-token.js';
import { identityOf, tokenValid, type AuditEntry, type StaffIdentity, type StaffTokenFound } from '../access/staff.js';
import { bearerToken } from '../protocol/signing.js';
import type { Decimal } from '../protocol/money.js';
import { sendProblem } from './json-api.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The action an admin route needs (access/roles.ts). */
    action?: Action;
  }
  interface FastifyRequest {
    /** Who is calling, once the guard let them in. */
    staff?: StaffIdentity;
    /** What the call concerns, for its audit row; set by the handler as soon as it knows. */
    auditFacts?: AuditFacts;
    /** Set once the call's audit row was written (with the change, in its database transaction). */
    audited?: boolean;
  }
}

/** What a handler tells of its call for the audit row. */
interface AuditFacts {
  target?: string | null;
  amount?: string | null;
  currency?: string | null;
  operatorId?: string | null;
}

export interface StaffGuardOptions {
  /** The configured admin token (as it is, or `sha256:<hex>`): a built-in admin account named ADMIN_TOKEN_ACTOR. */
  adminToken: string;
  /** The account and token stored under a token's hash, valid or not. */
  findToken: (tokenHash: string) => Promise<StaffTokenFound | undefined>;
  /** Writes an audit row of its own (a call whose change did not carry it). */
  appendAudit: (entry: AuditEntry) => Promise<unknown>;
  clock: () => number;
  /** The caller's address as the server judges it (the provider follows trusted proxies). */
  address?: (request: FastifyRequest) => string;
  limits: StaffLimits;
}

export interface StaffGuard {
  /** Every admin route registered, with its action: what the tests walk. */
  readonly routes: { method: string; url: string; action: Action }[];
  /** The audit row of this call with the status it answers on success; the store writes it with the change. */
  auditEntry(request: FastifyRequest, status: number): AuditEntry;
  /**
   * Checks that the caller's role may move this much money (money.move and
   * its limit); answers 403 itself and returns false when not.
   */
  moneyAllowed(request: FastifyRequest, reply: FastifyReply, currency: string, amount: Decimal): boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The built-in account of the configured admin token. */
const ADMIN_TOKEN_IDENTITY: StaffIdentity = { name: ADMIN_TOKEN_ACTOR, role: 'admin', tokenId: null, operators: null };

/** Installs the guard on an admin plugin's instance, before its routes are registered. */
// eslint-disable-next-line max-lines-per-function -- one guard's hooks, which share the per-request state they set
export function installStaffGuard(admin: FastifyInstance, options: StaffGuardOptions): StaffGuard {
  const isAdminToken = adminTokenMatcher(options.adminToken);
  const routes: StaffGuard['routes'] = [];
  const addressOf = options.address ?? ((request: FastifyRequest) => request.ip);

  admin.addHook('onRoute', (route) => {
    const action = (route.config as { action?: unknown } | undefined)?.action;
    if (!isAction(action)) throw new Error(`admin route ${String(route.method)} ${route.url} declares no action (config.action)`);
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url, action });
  });

  admin.addHook('onRequest', async (request, reply) => {
    const presented = bearerToken(request.headers.authorization);
    let staff: StaffIdentity | undefined;
    if (isAdminToken(presented)) {
      staff = ADMIN_TOKEN_IDENTITY;
    } else if (presented !== undefined && isStaffTokenShape(presented)) {
      const found = await options.findToken(staffTokenHash(presented));
      if (found && tokenValid(found, options.clock())) staff = identityOf(found);
    }
    if (!staff)
      return sendProblem(reply, 'INVALID_TOKEN', 'Authorization must be Bearer with the admin token or a staff token that is neither revoked nor expired');
    request.staff = staff;
    // Only a path no route has lacks an action: its 404 follows, to an authenticated caller only.
    const action = request.routeOptions.config.action;
    if (action !== undefined && !allows(staff.role, action)) {
      return sendProblem(reply, 'FORBIDDEN', `${action}: takes the ${leastRoleFor(action)} role or above; ${staff.name} is ${staff.role}`);
    }
  });

  function auditEntry(request: FastifyRequest, status: number, code: string | null = null): AuditEntry {
    const staff = request.staff!;
    const facts = request.auditFacts ?? {};
    return {
      at: options.clock(),
      actor: staff.name,
      tokenId: staff.tokenId,
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      target: facts.target ?? null,
      amount: facts.amount ?? null,
      currency: facts.currency ?? null,
      address: addressOf(request),
      operatorId: facts.operatorId ?? null,
      status,
      code,
    };
  }

  // Before the answer leaves: a refused call is on record before its caller hears of it.
  admin.addHook('onSend', async (request, reply, payload) => {
    if (READ_METHODS.has(request.method) || !request.staff || request.audited) return payload;
    const status = reply.statusCode;
    const code = status >= 400 ? (reply.problemCode ?? codeOf(payload)) : null;
    try {
      await options.appendAudit(auditEntry(request, status, code));
    } catch (error) {
      // Storage that refused the call's own write refuses this one too: the answer says so already (503).
      request.log.error({ err: error }, 'audit row not written');
    }
    return payload;
  });

  return {
    routes,
    auditEntry: (request, status) => auditEntry(request, status),
    moneyAllowed(request, reply, currency, amount) {
      const staff = request.staff!;
      if (!allows(staff.role, 'money.move')) {
        sendProblem(reply, 'FORBIDDEN', `money.move: takes the ${leastRoleFor('money.move')} role or above; ${staff.name} is ${staff.role}`);
        return false;
      }
      const limit = overLimit(options.limits, staff.role, currency, amount);
      if (limit !== undefined) {
        sendProblem(
          reply,
          'STAFF_LIMIT_EXCEEDED',
          `amount: ${decimalText(amount)} ${currency} is over the ${staff.role} role's limit of ${limit} ${currency} per call`,
        );
        return false;
      }
      return true;
    },
  };
}

function codeOf(payload: unknown): string | null {
  if (typeof payload !== 'string') return null;
  return /"code":"([A-Z_]+)"/.exec(payload)?.[1] ?? null;
}
