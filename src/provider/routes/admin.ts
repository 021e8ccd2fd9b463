/**
 * The provider's back office, as one Fastify plugin registered under
 * /admin: free-bet campaigns, tournament payouts, the outbox's items
 * (retried or resolved by hand), the rounds, the staff and audit log, and
 * the verify of the whole records, a file each under admin/. Every route
 * declares its action (src/access/roles.ts); the staff guard
 * (src/http/staff-guard.ts) is installed in this plugin's own context,
 * before the families add their routes to that same context, so its hooks
 * judge these routes and no other. Reads are filtered to the staff account's operators; an operator
 * outside them is refused or not found, so that nothing leaks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../../http/json-api.js';
import { installStaffGuard, type StaffGuard } from '../../http/staff-guard.js';
import type { Catalog } from '../catalog.js';
import type { ProviderWorld, RoundDelivery } from '../game-service.js';
import { addressSet, callerAddress } from '../../access/address-ranges.js';
import type { GameSettings } from '../config-games.js';
import type { OperatorSettings } from '../config-operators.js';
import type { ProviderConfig } from '../provider-config.js';
import type { ProviderStore } from '../store/provider-store.js';
import type { AdminContext } from './admin/admin-context.js';
import { campaignRoutes } from './admin/campaigns.js';
import { outboxRoutes } from './admin/outbox.js';
import { payoutReadRoutes, payoutRoutes } from './admin/payouts.js';
import { roundRoutes } from './admin/rounds.js';
import { staffRoutes } from './admin/staff.js';
import { verifyRoutes } from './admin/verify.js';

export interface AdminRoutesOptions {
  config: ProviderConfig & { adminToken: string };
  store: ProviderStore;
  catalog: Catalog<GameSettings>;
  /** The clock of campaigns and payouts, and the randomness of staff tokens. */
  world: ProviderWorld;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: (guard: StaffGuard) => void;
  /** The outbox's dispatcher, woken once a payout or a retried item is durable (round-delivery.ts). */
  delivery?: RoundDelivery;
}

/** The back office's routes, every one behind the staff guard. */
export async function adminRoutes(admin: FastifyInstance, options: AdminRoutesOptions): Promise<void> {
  const { config, store, catalog, world } = options;
  const operatorsById: ReadonlyMap<string, OperatorSettings> = new Map(config.operators.map((settings) => [settings.operatorId, settings]));
  /** Every operator's trusted proxies: the back office's caller is judged as the IP whitelists judge one. */
  const trustedProxies = addressSet(config.operators.flatMap((settings) => settings.trustedProxies));

  // Who calls and whether their role holds the route's action; the audit row of each state-changing call.
  const guard = installStaffGuard(admin, {
    adminToken: config.adminToken,
    findToken: (tokenHash) => store.findStaffToken(tokenHash),
    appendAudit: async (entry) => {
      await store.appendAudit(entry);
      await store.durable();
    },
    clock: world.clock,
    // The address the IP whitelists judge: through trusted proxies, as configured for any operator.
    address: (request) => (callerAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxies) ?? request.ip).toString(),
    limits: config.staffLimits,
  });
  options.onGuard?.(guard);
  const scopeOf = (request: FastifyRequest) => request.staff!.operators;
  const context: AdminContext = {
    store,
    catalog,
    world,
    guard,
    operatorsById,
    delivery: options.delivery,
    scopeOf,
    inScope: (request, operatorId) => {
      const scope = scopeOf(request);
      return scope === null || scope.includes(operatorId);
    },
    outOfScope: (request: FastifyRequest, reply: FastifyReply, operatorId: string) =>
      sendProblem(reply, 'FORBIDDEN', `operator ${operatorId} is outside ${request.staff!.name}'s scope`),
  };

  // Functions, not plugins of their own: they add their routes to this very context, after the guard's hooks.
  campaignRoutes(admin, context);
  payoutRoutes(admin, context);
  payoutReadRoutes(admin, context);
  outboxRoutes(admin, context);
  roundRoutes(admin, context);
  staffRoutes(admin, context);
  verifyRoutes(admin, context);
}
