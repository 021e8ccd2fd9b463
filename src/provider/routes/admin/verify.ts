/**
 * The provider's verify in its back office: GET /admin/verify answers the
 * verdict `wagerlink provider verify --json` prints (src/rounds/books.ts),
 * 200 whether or not the records agree (`ok` says), as the wallet's
 * GET /admin/verify answers its report. A verify that could not read is a
 * 503 from the store (UnavailableError), with its reason.
 *
 * It judges every operator's records together (a pool, an item or a
 * campaign is judged against the rounds of every operator it names), so it
 * takes an admin of every operator: a scoped account would read other
 * operators' rounds, players and payouts in its findings.
 */
import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../../../http/json-api.js';
import { sendJson } from '../send-json.js';
import type { AdminContext } from './admin-context.js';

const RECORDS_VERIFY = { config: { action: 'records.verify' } } as const;

/** GET /verify. */
export function verifyRoutes(admin: FastifyInstance, { store, scopeOf }: AdminContext): void {
  admin.get('/verify', RECORDS_VERIFY, async (request, reply) => {
    if (scopeOf(request) !== null) {
      return sendProblem(reply, 'FORBIDDEN', `records.verify: takes an admin of every operator; ${request.staff!.name} is scoped`);
    }
    return sendJson(reply, 200, JSON.stringify(await store.verify()));
  });
}
