/**
 * The back office's players: made (an opening balance is money, held to
 * the role's limit), listed, read, blocked and unblocked, and given a
 * launch key.
 */
import type { FastifyInstance } from 'fastify';
import { decimalText } from '../../../access/limits.js';
import { sendJson, sendProblem, sendRefusal } from '../../../http/json-api.js';
import { stringify } from '../../../protocol/json.js';
import { decimalFromNumber } from '../../../protocol/money.js';
import { isCountryCode } from '../../../protocol/regions.js';
import { BlockRequest, CreateLaunchKeyRequest, CreatePlayerRequest, PlayersQuery } from '../../../protocol/schemas.js';
import { compile, compileBody } from '../../../protocol/validate.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, type PlayerView } from '../../../stores/store.js';
import { launchKeyBody, playerBody, playersBody } from '../../operator-views.js';
import { adminInput, READ, type AdminContext } from './admin-context.js';

const bodies = {
  createPlayer: compileBody(CreatePlayerRequest, (value) => [['balance', value.balance]]),
  launchKey: compileBody(CreateLaunchKeyRequest),
  block: compileBody(BlockRequest),
};
const playersQuery = compile(PlayersQuery);

function playerJson(player: PlayerView): string {
  return stringify(playerBody(player));
}

/** POST /players, GET /players, GET /players/:playerId, POST /launch-keys, POST /players/:playerId/block and /unblock. */
export function playerRoutes(admin: FastifyInstance, { service, guard }: AdminContext): void {
  admin.post('/players', { config: { action: 'players.manage' } }, async (request, reply) => {
    const input = adminInput(request, reply, bodies.createPlayer);
    if (!input) return reply;
    const opening = decimalFromNumber(input.balance);
    request.auditFacts = { target: `player=${input.playerId}`, amount: opening && decimalText(opening), currency: input.currency };
    // An opening balance is money: it takes money.move and the role's limit.
    if (opening && opening.units > 0n && !guard.moneyAllowed(request, reply, input.currency, opening)) return reply;
    if (input.country !== undefined && !isCountryCode(input.country)) {
      return sendProblem(reply, 'INVALID_REQUEST', `country: ${input.country} is not an assigned ISO 3166-1 alpha-2 code`);
    }
    const outcome = await service.createPlayer(input, guard.auditEntry(request, 201));
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 201, playerJson(outcome));
  });

  admin.get('/players', READ, async (request, reply) => {
    const checked = playersQuery.check({ ...(request.query as object) });
    if (!checked.ok) return sendRefusal(reply, checked);
    const query = checked.value;
    const limit = query.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(query.limit);
    if (limit < 1 || limit > PAGE_LIMIT_MAX) return sendProblem(reply, 'INVALID_REQUEST', `limit: must be 1..${PAGE_LIMIT_MAX}`);
    const page = await service.listPlayers({
      limit,
      after: query.cursor,
      currency: query.currency,
      blocked: query.blocked === undefined ? undefined : query.blocked === 'true',
      prefix: query.prefix,
    });
    return sendJson(reply, 200, stringify(playersBody(page)));
  });

  admin.get('/players/:playerId', READ, async (request, reply) => {
    const { playerId } = request.params as { playerId: string };
    const outcome = await service.getPlayer(playerId);
    if (!outcome.ok) return sendRefusal(reply, outcome);
    return sendJson(reply, 200, playerJson(outcome));
  });

  admin.post('/launch-keys', { config: { action: 'launch-keys.create' } }, async (request, reply) => {
    const input = adminInput(request, reply, bodies.launchKey);
    if (!input) return reply;
    // The key itself is a credential: the audit names the player and game, never the key.
    request.auditFacts = { target: `player=${input.playerId} game=${input.game}${input.integration === undefined ? '' : ` integration=${input.integration}`}` };
    const outcome = await service.createLaunchKey(input.playerId, input.game, guard.auditEntry(request, 201), input.integration);
    if (!outcome.ok) return sendRefusal(reply, outcome);
    request.audited = true;
    return sendJson(reply, 201, stringify(launchKeyBody(outcome)));
  });

  for (const [path, blocked] of [
    ['block', true],
    ['unblock', false],
  ] as const) {
    admin.post(`/players/:playerId/${path}`, { config: { action: 'players.manage' } }, async (request, reply) => {
      const { playerId } = request.params as { playerId: string };
      request.auditFacts = { target: `player=${playerId}` };
      // The body is optional here: a reason, when given.
      let reason: string | undefined;
      if (request.body !== undefined) {
        const input = adminInput(request, reply, bodies.block);
        if (!input) return reply;
        reason = input.reason;
      }
      const outcome = await service.setBlocked(playerId, blocked, reason, guard.auditEntry(request, 200));
      if (!outcome.ok) return sendRefusal(reply, outcome);
      request.audited = true;
      return sendJson(reply, 200, playerJson(outcome));
    });
  }
}
