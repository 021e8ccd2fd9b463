/**
 * The signed interface the provider calls (docs/protocol.md §5–§7):
 * /authenticate, /transaction and /payout, as one Fastify plugin.
 *
 * Order of checks on a wallet call: bearer token, content type and size,
 * signature over the raw bytes, JSON, schema, then the wallet rules in the
 * store. Nothing is parsed before the caller is authenticated: the token is
 * a route-level onRequest hook of each route here, so it applies to these
 * routes and no other, and the signature is checked on the raw body the
 * app's JSON parser keeps (src/http/json-api.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import { bodyBytes, readBody, sendJson, sendProblem, sendRefusal } from '../../http/json-api.js';
import { precheckTransaction } from '../../ledger/rules.js';
import type { Refusal } from '../../protocol/errors.js';
import { raw, stringify } from '../../protocol/json.js';
import { AuthenticateRequest, PayoutRequest, TransactionRequest } from '../../protocol/schemas.js';
import { bearerToken, SIGNATURE_HEADER, tokenAccepted, verifySignature } from '../../protocol/signing.js';
import { compileBody, type BodyReader } from '../../protocol/validate.js';
import type { BalanceOutcome } from '../../stores/store.js';
import type { OperatorMetrics } from '../metrics.js';
import type { OperatorService } from '../operator-service.js';

export interface SignedRoutesOptions {
  service: OperatorService;
  metrics: OperatorMetrics;
  /** HMAC secrets as bytes (protocol/signing.ts, signingSecrets): the current one, and the next one during a rotation. */
  secrets: readonly Uint8Array[];
  /** Bearer tokens accepted from the provider, as bytes. */
  accessTokens: readonly Buffer[];
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
  const { secrets, accessTokens } = options;
  const transactionsMax = options.transactionsPerRequestMax;

  /**
   * A wallet call as the provider makes it (its bearer token was checked on
   * arrival): JSON, HMAC of the raw body, then the schema. Answers the
   * refusal itself and returns undefined when any of them fails. The checked
   * value stays wrapped until here: a body's own members (even `ok` or
   * `code`) never steer what happens.
   */
  function walletInput<T extends TSchema>(request: FastifyRequest, reply: FastifyReply, body: BodyReader<T>): Static<T> | undefined {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return undefined;
    if (!verifySignature(secrets, request.headers[SIGNATURE_HEADER], bytes)) {
      sendProblem(reply, 'INVALID_SIGNATURE', 'X-Server-Authorization must be the hex HMAC-SHA256 of the body');
      return undefined;
    }
    return readBody(reply, bytes, body);
  }

  /**
   * Runs on arrival, before the body is read: an unauthenticated caller gets
   * 401 whatever it sent. A callback hook, not an async one: it runs on
   * every wallet call, and a promise per call is measurable there.
   */
  const walletToken = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!tokenAccepted(accessTokens, bearerToken(request.headers.authorization))) {
      // Answered: the chain stops here, so done() is not called (Fastify's "Respond to a request from a hook").
      sendProblem(reply, 'INVALID_TOKEN', 'Authorization must be Bearer with an accepted access token');
      return;
    }
    done();
  };

  function sendBalance(reply: FastifyReply, outcome: BalanceOutcome | Refusal): FastifyReply {
    if (!outcome.ok) return sendRefusal(reply, outcome);
    metrics.observeBooked(outcome.currency, outcome.booked);
    return sendJson(reply, 200, `{"balance":${outcome.balance}}`);
  }

  app.post('/transaction', { onRequest: walletToken }, async (request, reply) => {
    const input = walletInput(request, reply, bodies.transaction);
    if (!input) return reply;
    const refused = precheckTransaction(input, transactionsMax);
    if (refused) return sendRefusal(reply, refused);
    return sendBalance(reply, await service.transact(input));
  });

  app.post('/payout', { onRequest: walletToken }, async (request, reply) => {
    const input = walletInput(request, reply, bodies.payout);
    if (!input) return reply;
    return sendBalance(reply, await service.payout(input));
  });

  app.post('/authenticate', { onRequest: walletToken }, async (request, reply) => {
    const input = walletInput(request, reply, bodies.authenticate);
    if (!input) return reply;
    const outcome = await service.authenticate(input.key, input.game);
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
