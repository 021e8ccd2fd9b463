/**
 * The operator's back office, as one Fastify plugin registered under
 * /admin: players and launch keys (admin/players.ts), adjustments, rounds,
 * transfers and the books' verify (admin/books.ts), GGR (admin/ggr.ts), and
 * the staff and audit log (admin/staff.ts). Every route declares its action
 * (src/access/roles.ts); the staff guard (src/http/staff-guard.ts) and the
 * check of every :playerId are hooks of this plugin's own context, added
 * before the families add their routes to that same context, so they judge
 * these routes and no other, and a new route here cannot forget them.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { StaffLimits } from '../../access/limits.js';
import { sendRefusal } from '../../http/json-api.js';
import { installStaffGuard, type StaffGuard } from '../../http/staff-guard.js';
import { StoredPlayerId } from '../../protocol/schemas.js';
import { compile } from '../../protocol/validate.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorService } from '../operator-service.js';
import { bookRoutes } from './admin/books.js';
import { ggrRoutes } from './admin/ggr.js';
import { playerRoutes } from './admin/players.js';
import { staffRoutes } from './admin/staff.js';
import { integrationRoutes } from './admin/integrations.js';
import type { IntegrationRegistry } from '../integration-registry.js';

export interface AdminRoutesOptions {
  service: OperatorService;
  metrics: OperatorMetrics;
  /** See OperatorAppOptions.adminToken. */
  adminToken: string;
  staffLimits: StaffLimits;
  /** The integrations this node serves: the integrations routes change them and reload it. */
  integrations: IntegrationRegistry;
  /** Hands over the back office's guard once built: its route table, for tests that walk every route. */
  onGuard?: ((guard: StaffGuard) => void) | undefined;
}

/**
 * Route parameters of the back office: a player it holds, by the id it was
 * stored under, which may be older than the rule new ids obey (docs/protocol.md
 * §5.4), so that such a player can still be read, adjusted and blocked.
 */
const playerParams = compile(Type.Object({ playerId: StoredPlayerId }));

/** The back office's routes, every one behind the staff guard. */
export async function adminRoutes(admin: FastifyInstance, options: AdminRoutesOptions): Promise<void> {
  const { service, metrics, staffLimits, onGuard } = options;
  // Who calls and whether their role holds the route's action; the audit row of each state-changing call.
  const guard = installStaffGuard(admin, {
    adminToken: options.adminToken,
    findToken: async (tokenHash) => (await service.store.findStaffToken(tokenHash)) ?? undefined,
    appendAudit: (entry) => service.store.appendAudit(entry),
    clock: () => service.now(),
    limits: staffLimits,
  });
  onGuard?.(guard);

  // Every :playerId of the back office obeys StoredPlayerId, what ids always had to be: a
  // control character (U+0000 cannot even reach PostgreSQL) or an over-long id is the caller's
  // mistake, 400, never a storage failure. A hook, so that a new route cannot forget it.
  admin.addHook('onRequest', async (request, reply) => {
    const params = request.params as { playerId?: unknown };
    if (params.playerId === undefined) return;
    const checked = playerParams.check(params);
    if (!checked.ok) return sendRefusal(reply, checked);
  });

  // Functions, not plugins of their own: they add their routes to this very context, after its hooks.
  const context = { service, metrics, guard };
  playerRoutes(admin, context);
  ggrRoutes(admin, context);
  bookRoutes(admin, context);
  staffRoutes(admin, context);
  integrationRoutes(admin, { ...context, integrations: options.integrations });
}
