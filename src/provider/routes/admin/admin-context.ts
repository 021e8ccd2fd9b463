/**
 * What every family of the provider's back office shares: the store, the
 * catalog, the clock, the staff guard, and the staff account's scope. The
 * families (campaigns.ts, payouts.ts, outbox.ts, rounds.ts, staff.ts,
 * verify.ts) add their routes to the back office's own instance
 * (../admin.ts), after the guard's hooks, so that those hooks judge every
 * one of them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StaffIdentity } from '../../../access/staff.js';
import type { StaffGuard } from '../../../http/staff-guard.js';
import type { Catalog } from '../../catalog.js';
import type { ProviderWorld, RoundDelivery } from '../../game-service.js';
import type { GameSettings } from '../../config-games.js';
import type { OperatorSettings } from '../../config-operators.js';
import type { ProviderStore } from '../../store/provider-store.js';

export interface AdminContext {
  store: ProviderStore;
  catalog: Catalog<GameSettings>;
  /** The clock of campaigns and payouts, and the randomness of staff tokens. */
  world: ProviderWorld;
  guard: StaffGuard;
  operatorsById: ReadonlyMap<string, OperatorSettings>;
  /** The outbox's dispatcher, woken once a payout or a retried item is durable (round-delivery.ts). */
  delivery: RoundDelivery | undefined;
  /** The operators the caller may see and act on; null is all. */
  scopeOf(request: FastifyRequest): StaffIdentity['operators'];
  inScope(request: FastifyRequest, operatorId: string): boolean;
  /** An operator the caller named outside their scope: 403, whether or not it is configured, so that nothing leaks. */
  outOfScope(request: FastifyRequest, reply: FastifyReply, operatorId: string): FastifyReply;
}

/** Read routes' options: every role may read (within its scope). */
export const READ = { config: { action: 'read' } } as const;
