/**
 * What every family of the operator's back office shares: the service, the
 * metrics and the staff guard. The families (players.ts, books.ts, ggr.ts,
 * staff.ts) add their routes to the back office's own instance
 * (../admin.ts), after its hooks, so that the staff guard and the check of
 * every :playerId judge every one of them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { bodyBytes, readBody } from '../../../http/json-api.js';
import type { StaffGuard } from '../../../http/staff-guard.js';
import type { BodyReader } from '../../../protocol/validate.js';
import type { OperatorMetrics } from '../../metrics.js';
import type { OperatorService } from '../../operator-service.js';

export interface AdminContext {
  service: OperatorService;
  metrics: OperatorMetrics;
  guard: StaffGuard;
}

/** Read routes' options: every role may read. */
export const READ = { config: { action: 'read' } } as const;

/** The checked body of an admin call; undefined once the refusal is sent. */
export function adminInput<T extends TSchema>(request: FastifyRequest, reply: FastifyReply, body: BodyReader<T>): Static<T> | undefined {
  const bytes = bodyBytes(request, reply);
  return bytes && readBody(reply, bytes, body);
}
