/**
 * The back office's "casino down" switch. While it is on, the sandbox's
 * operator answers the provider's wallet calls (/authenticate, /transaction,
 * /payout) 503 SERVICE_UNAVAILABLE, as a casino in an outage does, and
 * books nothing: the provider's outbox keeps what it could not deliver,
 * resends it on its back-off and parks it after the horizon
 * (--dispatch-horizon). So staff can watch rounds and payouts wait, then
 * retry them, or resolve them by hand, with the real servers and no fault
 * of their own making. Off at every start; the lobby, the back office and
 * /admin are never switched off.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bodyBytes, readBody, sendJson, sendProblem } from '../http/json-api.js';
import { compileBody } from '../protocol/validate.js';

/** The provider's calls to the wallet: what a casino in an outage cannot answer. */
const WALLET_PATHS = new Set(['/authenticate', '/transaction', '/payout']);
const OUTAGE_PATH = '/backoffice/api/outage';
const outageBody = compileBody(Type.Object({ down: Type.Boolean() }));

/**
 * `admitted` says whether a request's Authorization may flip the switch:
 * the back office's staff token, or the operator's admin token.
 */
export function registerCasinoOutage(app: FastifyInstance, options: { admitted: (authorization: string | undefined) => Promise<boolean> }): void {
  let down = false;

  app.addHook('onRequest', async (request, reply) => {
    if (!down || request.method !== 'POST' || !WALLET_PATHS.has(request.url.split('?')[0]!)) return;
    return sendProblem(reply, 'SERVICE_UNAVAILABLE', "the casino is switched off in the sandbox's back office (Casino down)");
  });

  const { admitted } = options;

  app.get(OUTAGE_PATH, async (request, reply) => {
    if (!(await admitted(request.headers.authorization))) return sendProblem(reply, 'INVALID_TOKEN', 'Authorization must be Bearer with the admin token');
    return sendJson(reply, 200, JSON.stringify({ down }));
  });

  app.post(OUTAGE_PATH, async (request, reply) => {
    if (!(await admitted(request.headers.authorization))) return sendProblem(reply, 'INVALID_TOKEN', 'Authorization must be Bearer with the admin token');
    const bytes = bodyBytes(request, reply);
    const input = bytes && readBody(reply, bytes, outageBody);
    if (!input) return reply;
    down = input.down;
    return sendJson(reply, 200, JSON.stringify({ down }));
  });
}
