/**
 * The signed interface the provider calls (docs/protocol.md §5–§7):
 * /authenticate, /transaction and /payout, as one Fastify plugin.
 *
 * Order of checks on a wallet call (docs/protocol.md §2.6): bearer token,
 * which names the integration calling (unknown: INVALID_TOKEN); the
 * integration switched off (INTEGRATION_OFF); the caller's address outside
 * its ranges (IP_NOT_ALLOWED); content type and size; the signature over
 * the raw bytes under that integration's secrets only; JSON, schema, then
 * the wallet rules in the store, which judge a paused integration's bets
 * and a session another integration opened (rules.ts). Nothing is parsed
 * before the caller is authenticated: the token is a route-level onRequest
 * hook of each route here, so it applies to these routes and no other, and
 * the signature is checked on the raw body the app's JSON parser keeps
 * (src/http/json-api.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { bodyBytes, readBody, sendJson, sendProblem, sendRefusal } from '../../http/json-api.js';
import { checkPayout, checkTransaction } from '../../protocol/checked-requests.js';
import type { Refusal } from '../../protocol/errors.js';
import { raw, stringify } from '../../protocol/json.js';
import { AuthenticateRequest, PayoutRequest, TransactionRequest } from '../../protocol/schemas.js';
import { bearerToken, SIGNATURE_HEADER, verifySignature } from '../../protocol/signing.js';
import { parseAddress } from '../../access/address-ranges.js';
import { compileBody, type BodyReader } from '../../protocol/validate.js';
import type { BalanceOutcome } from '../../stores/store.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorService } from '../operator-service.js';
import type { CallingIntegration, IntegrationRegistry } from '../integration-registry.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The integration a wallet call's bearer token named (walletTokenHook); null on every other route. */
    walletCaller: CallingIntegration | null;
  }
}

export interface SignedRoutesOptions {
  service: OperatorService;
  metrics: OperatorMetrics;
  /** Which integration a bearer token names, with its state, secrets and ranges. */
  integrations: IntegrationRegistry;
  transactionsPerRequestMax: number;
}

const bodies = {
  transaction: compileBody(TransactionRequest, (value) =>
    value.transactions.flatMap((tx, i): [string, number | undefined][] => [
      [`transactions[${i}].amount`, tx.amount],
      [`transactions[${i}].jpAmount`, tx.jpAmount],
    ]),
  ),
  payout: compileBody(PayoutRequest, (value) => [['amount', value.amount]]),
  authenticate: compileBody(AuthenticateRequest),
};

/** The wallet's routes the provider calls, each behind the bearer token, then the signature. */
export async function signedRoutes(app: FastifyInstance, options: SignedRoutesOptions): Promise<void> {
  const { service, metrics } = options;
  const { integrations } = options;
  // The integration each call's token named, from its onRequest hook to its handler: a field Fastify gives every
  // request of this plugin's routes from the start, so that setting it changes no object's shape on the hot path
  // (a WeakMap entry per call cost a hash and a collection's work).
  app.decorateRequest('walletCaller', null);
  const transactionsMax = options.transactionsPerRequestMax;

  /**
   * A wallet call as the provider makes it (its bearer token was checked on
   * arrival): JSON, HMAC of the raw body, then the schema. Answers the
   * refusal itself and returns undefined when any of them fails. The checked
   * value stays wrapped until here: a body's own members (even `ok` or
   * `code`) never steer what happens.
   */
  function walletInput<T extends TSchema>(
    request: FastifyRequest,
    reply: FastifyReply,
    body: BodyReader<T>,
  ): { input: Static<T>; integration: CallingIntegration } | undefined {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return undefined;
    const integration = request.walletCaller!;
    // That integration's secrets only: a token of one integration with a body signed by another's is refused.
    if (!verifySignature(integration.secrets, request.headers[SIGNATURE_HEADER], bytes)) {
      sendProblem(reply, 'INVALID_SIGNATURE', 'X-Server-Authorization must be the hex HMAC-SHA256 of the body');
      return undefined;
    }
    const input = readBody(reply, bytes, body);
    return input === undefined ? undefined : { input, integration };
  }

  const walletToken = walletTokenHook(integrations);

  function sendBalance(reply: FastifyReply, outcome: BalanceOutcome | Refusal, integration: CallingIntegration): FastifyReply {
    if (!outcome.ok) return sendRefusal(reply, outcome);
    metrics.observeBooked(outcome.currency, outcome.booked, integration.id);
    return sendJson(reply, 200, `{"balance":${outcome.balance}}`);
  }

  app.post('/transaction', { onRequest: walletToken }, async (request, reply) => {
    const call = walletInput(request, reply, bodies.transaction);
    if (!call) return reply;
    const checked = checkTransaction(call.input, transactionsMax);
    if (!checked.ok) return sendRefusal(reply, checked);
    return sendBalance(reply, await service.transact(checked.value, call.integration.id, call.integration.state === 'paused'), call.integration);
  });

  app.post('/payout', { onRequest: walletToken }, async (request, reply) => {
    // A paused integration's payouts are booked: only bets are paused.
    const call = walletInput(request, reply, bodies.payout);
    if (!call) return reply;
    return sendBalance(reply, await service.payout(checkPayout(call.input), call.integration.id), call.integration);
  });

  app.post('/authenticate', { onRequest: walletToken }, async (request, reply) => {
    const call = walletInput(request, reply, bodies.authenticate);
    if (!call) return reply;
    const outcome = await service.authenticate(call.input.key, call.input.game, call.integration.id, call.integration.state === 'paused');
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(
      reply,
      200,
      stringify({
        sessionId: outcome.sessionId,
        playerId: outcome.playerId,
        currency: outcome.currency,
        balance: raw(outcome.balance),
        country: outcome.country,
      }),
    );
  });
}

/**
 * The bearer token, on arrival, before the body is read: which integration
 * calls, whether it is switched off, whether its caller is in its ranges;
 * the integration found is kept for the handler. An unauthenticated caller gets
 * 401 whatever it sent. A callback hook, not an async one: it runs on
 * every wallet call, and a promise per call is measurable there. The
 * token is looked up by its SHA-256 in the registry's map, so the time
 * taken depends on no byte of any accepted token.
 */
function walletTokenHook(integrations: IntegrationRegistry) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const integration = integrations.lookup(bearerToken(request.headers.authorization));
    // Answered: the chain stops here, so done() is not called (Fastify's "Respond to a request from a hook").
    if (integration === undefined) {
      sendProblem(reply, 'INVALID_TOKEN', 'Authorization must be Bearer with an accepted access token');
      return;
    }
    if (integration.state === 'off') {
      sendProblem(reply, 'INTEGRATION_OFF', `integration ${integration.id} is switched off: every call is refused until it is made active again`);
      return;
    }
    if (integration.ranges !== undefined && !integration.ranges.has(parseAddress(request.socket.remoteAddress ?? ''))) {
      sendProblem(reply, 'IP_NOT_ALLOWED', `the caller's address is outside integration ${integration.id}'s caller ranges`);
      return;
    }
    request.walletCaller = integration;
    done();
  };
}
