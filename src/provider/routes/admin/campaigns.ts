/**
 * The back office's free-bet campaigns: written (idempotent by id, each
 * free round a bet on the game's ladder) and read, within the staff
 * account's scope.
 */
import type { FastifyInstance } from 'fastify';
import { bodyBytes, readBody, sendProblem } from '../../../http/json-api.js';
import { raw, stringify } from '../../../protocol/json.js';
import { decimalFromNumber, decimalFromString, formatMinor, toMinor } from '../../../protocol/money.js';
import { compileBody } from '../../../protocol/validate.js';
import { noLadderDetail, offLadderDetail } from '../../catalog.js';
import { CampaignRequest } from '../../provider-schemas.js';
import type { CampaignRow } from '../../store/provider-store.js';
import { sendJson } from '../send-json.js';
import { READ, type AdminContext } from './admin-context.js';

const campaignBodyReader = compileBody(CampaignRequest, (value) => [['betAmount', typeof value.betAmount === 'number' ? value.betAmount : undefined]]);

/** POST /campaigns and GET /campaigns/:id. */
export function campaignRoutes(admin: FastifyInstance, context: AdminContext): void {
  const { store, catalog, world, guard, operatorsById, inScope, outOfScope } = context;

  admin.post('/campaigns', { config: { action: 'campaigns.manage' } }, async (request, reply) => {
    const bytes = bodyBytes(request, reply);
    if (!bytes) return reply;
    const input = readBody(reply, bytes, campaignBodyReader);
    if (!input) return reply;
    request.auditFacts = { target: `campaign=${input.id}`, operatorId: input.operatorId, currency: input.currency };
    if (!inScope(request, input.operatorId)) return outOfScope(request, reply, input.operatorId);
    const operator = operatorsById.get(input.operatorId);
    if (!operator) return sendProblem(reply, 'WALLET_NOT_FOUND', `operator ${input.operatorId} is not configured`);
    if (!catalog.game(input.game)) return sendProblem(reply, 'GAME_NOT_FOUND', `unknown game ${input.game}`);
    // A free round is a bet the player could have made: on the game's ladder in a currency the
    // operator offers. Another amount would be played (the dice quote any bet of one minor unit
    // or more), but as a bet the game does not offer: above its largest, or none of the amounts
    // /game-bets told the operator.
    const ladder = catalog.offeredLadder(input.game, input.currency, operator);
    if (!ladder) return sendProblem(reply, 'UNSUPPORTED_CURRENCY', noLadderDetail(input.game, input.currency, input.operatorId));
    const decimals = catalog.decimals(input.currency)!;
    const decimal = typeof input.betAmount === 'string' ? decimalFromString(input.betAmount) : decimalFromNumber(input.betAmount);
    const betMinor = decimal === undefined ? undefined : toMinor(decimal, decimals);
    if (betMinor === undefined || betMinor === 0n) {
      return sendProblem(reply, 'INVALID_REQUEST', `betAmount: must be greater than 0 with at most ${decimals} decimals`);
    }
    if (!ladder.includes(betMinor)) {
      return sendProblem(reply, 'INVALID_REQUEST', `betAmount: ${offLadderDetail(String(input.betAmount), input.game, input.currency, ladder, decimals)}`);
    }
    const campaignId = input.id.toLowerCase();
    const written = await store.putCampaign(
      {
        campaignId,
        operatorId: input.operatorId,
        game: input.game,
        currency: input.currency,
        betMinor,
        rounds: input.rounds,
        expiresAt: input.expiresAt === undefined ? null : Date.parse(input.expiresAt),
        createdAt: world.clock(),
      },
      [...new Set(input.players)],
      (kind) => guard.auditEntry(request, kind === 'created' ? 201 : 200),
    );
    if (written === 'conflict') return sendProblem(reply, 'DUPLICATE_CONFLICT', `campaign ${input.id} exists with other content`);
    request.audited = true;
    await store.durable();
    return sendJson(reply, written === 'created' ? 201 : 200, await campaignBody(context, (await store.campaign(campaignId))!));
  });

  admin.get('/campaigns/:id', READ, async (request, reply) => {
    const { id } = request.params as { id: string };
    const campaign = await store.campaign(id.toLowerCase());
    // Another operator's campaign is not found: its existence is not the caller's to know.
    if (!campaign || !inScope(request, campaign.operatorId)) return sendProblem(reply, 'NOT_FOUND', `no campaign ${id}`);
    return sendJson(reply, 200, await campaignBody(context, campaign));
  });
}

/** A campaign as the back office answers it, with the rounds each player has used. */
async function campaignBody({ store, catalog }: AdminContext, campaign: CampaignRow & { players: string[] }): Promise<string> {
  const decimals = catalog.decimals(campaign.currency) ?? 0;
  return stringify({
    id: campaign.campaignId,
    operatorId: campaign.operatorId,
    game: campaign.game,
    currency: campaign.currency,
    betAmount: raw(formatMinor(campaign.betMinor, decimals)),
    rounds: campaign.rounds,
    expiresAt: campaign.expiresAt === null ? null : new Date(campaign.expiresAt).toISOString(),
    players: await Promise.all(
      campaign.players.map(async (playerId) => ({
        playerId,
        roundsUsed: await store.campaignRoundsUsed(campaign.campaignId, campaign.operatorId, playerId),
      })),
    ),
  });
}
