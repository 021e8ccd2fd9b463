/**
 * The plays of games: a dice round played whole, a reels round drawn whole
 * and played call by call, a free spin of a reels feature. A round is
 * planned by the rounds layer (src/rounds/plan.ts) from the session read in
 * the launch's turn, written by the store with its request enqueued in the
 * same transaction (real) or its balance moved (fun), and answered once the
 * casino has booked what the player is shown, or pending after
 * limits.roundSettleMsMax (the app's 202): the delivery goes on without the
 * player.
 */
import { refuse, type Refusal } from '../protocol/errors.js';
import { formatMinor } from '../protocol/money.js';
import { diceRoundBody } from '../rounds/bodies.js';
import { featureDone, reelsBaseBooked, roundFinished } from '../rounds/completion.js';
import { roundRefusal } from '../rounds/outcomes.js';
import { chanceRefusal, drawnRound, planDiceRound, planReelsRound } from '../rounds/plan.js';
import { spinView, stageOf } from '../rounds/views.js';
import { minorOfText, type GameContext } from './game-context.js';
import type { GameLaunches } from './game-launches.js';
import type { ReelsGameSettings } from './config-games.js';
import type { PlayRequest, ReelsPlayRequest } from './provider-schemas.js';
import type { RoundWaits } from './round-waits.js';
import { openSessionSeed } from './seed-keyring.js';
import type { PlayView, ReelsPlayView, SessionViews } from './session-views.js';
import type { CampaignRow, GameSessionRow, NewRound, RoundWrite } from './store/provider-store.js';

export class GamePlays {
  constructor(
    private readonly options: GameContext,
    private readonly views: SessionViews,
    private readonly waits: RoundWaits,
    private readonly launches: GameLaunches,
  ) {}

  /** Outcomes: play view (its round pending when the casino has not answered in time) | INVALID_LAUNCH_KEY | SESSION_NOT_FOUND | SESSION_EXPIRED | INVALID_REQUEST | INSUFFICIENT_FUNDS | CAMPAIGN_FINISHED | the operator's refusals | SERVICE_UNAVAILABLE */
  async play(token: string, slug: string, input: PlayRequest): Promise<PlayView | Refusal>;
  async play(token: string, slug: string, input: ReelsPlayRequest): Promise<ReelsPlayView | Refusal>;
  async play(token: string, slug: string, input: PlayRequest | ReelsPlayRequest): Promise<PlayView | ReelsPlayView | Refusal> {
    const { store } = this.options;
    return this.launches.inLaunchTurn(token, slug, async (opened) => {
      // In order: a launch's next round is played only once the one before it has a final answer (and, reels, its free spins are played).
      const left = await this.waits.pendingAfterWait(opened.pk);
      const session = await store.session(opened.pk);
      if (left === 'unfinished') {
        return refuse(
          'ROUND_UNFINISHED',
          'the previous round still has free spins to play: play them first',
          formatMinor(session.balanceMinor, this.views.decimalsOf(session)),
        );
      }
      if (left > 0) {
        return refuse('SERVICE_UNAVAILABLE', 'the previous round is still being settled with the casino: try again in a moment');
      }
      const game = this.options.catalog.game(session.game)!;
      if (game.kind === 'reels') return this.playReels(session, game, input as ReelsPlayRequest);
      // The plan reads the session and the campaigns; the round's write checks, in its own transaction, that they have not moved since.
      const plan = await this.planRound(session, input as PlayRequest);
      if (!plan.ok) return plan;
      return session.mode === 'fun' ? this.playFun(session, plan) : this.playReal(session, plan);
    });
  }

  /**
   * Plays the next free spin of a reels round's feature (drawn with the
   * round); after the last, the feature's call goes to the casino and the
   * answer waits for it as a play does. Outcomes: play view with the spin |
   * INVALID_LAUNCH_KEY | SESSION_NOT_FOUND | SESSION_EXPIRED | ROUND_MISMATCH (no round of the launch) |
   * ROUND_CLOSED (a round of the launch, however old, with no free spin left) | SERVICE_UNAVAILABLE (its bet still being settled, or another request played it first)
   */
  async freeSpin(token: string, slug: string, roundId: string): Promise<ReelsPlayView | Refusal> {
    const { store, world, config } = this.options;
    return this.launches.inLaunchTurn(token, slug, async (session) => {
      const balance = formatMinor(session.balanceMinor, this.views.decimalsOf(session));
      const now = world.clock();
      const round = (await store.pendingRounds(session.pk)).find((one) => one.roundId === roundId);
      if (round === undefined || round.kind !== 'reels' || featureDone(round.reels!)) {
        // Looked up in the store, not among the rounds the page shows: a round of this launch many rounds back is over, not another's.
        const known = round !== undefined || (await store.sessionRound(session.pk, roundId)) !== undefined;
        return known
          ? refuse('ROUND_CLOSED', `round ${roundId} has no free spin left to play`, balance)
          : refuse('ROUND_MISMATCH', `round ${roundId} is no round of this launch`, balance);
      }
      if (stageOf(round) === 'betting')
        return refuse('SERVICE_UNAVAILABLE', "the round's bet is still being settled with the casino: try again in a moment", balance);
      // A fun session stays alive while its player spins.
      if (session.mode === 'fun') await store.touchSession(session.pk, now);
      const played = round.reels!.freeSpinsPlayed;
      // Opened for the spin shown, and for its reveal when this spin is the feature's last.
      const serverSeed = this.views.seedOf(round);
      const written = await store.playFreeSpins(round.pk, played, played + 1, now, serverSeed);
      if (!written.ok) {
        return featureDone(written.round.reels!)
          ? refuse('ROUND_CLOSED', `round ${roundId} has no free spin left to play`, balance)
          : refuse('SERVICE_UNAVAILABLE', 'this free spin was played at the same time by another request: try again', balance);
      }
      let after = written.round;
      if (after.mode === 'real' && featureDone(after.reels!)) {
        // The feature's wins were enqueued (or are, once the base spin's answer is recorded): wait for the round's end as a play waits.
        await store.durable();
        this.options.delivery?.poke();
        after = await this.waits.waitFor(after.pk, config.limits.roundSettleMsMax, roundFinished);
      }
      const view = await this.views.reelsPlayView(session.pk, after);
      return { ...view, spin: spinView(drawnRound(after, serverSeed).freeSpins[played]!, this.views.decimalsOf(session), false) };
    });
  }

  private async planRound(session: GameSessionRow, input: PlayRequest) {
    const { world } = this.options;
    const game = this.views.diceGame(session.game);
    // An unknown currency is a broken session: it fails here as it would when the round is shown.
    this.views.decimalsOf(session);
    const badChance = chanceRefusal(game.rules, input.chancePct);
    if (badChance) return badChance;
    const stake = await this.stakeOf(session, input);
    if (!stake.ok) return stake;
    return planDiceRound({
      rules: game.rules,
      session,
      betMinor: stake.betMinor,
      betText: input.bet,
      chancePct: input.chancePct,
      clientSeed: input.clientSeed,
      campaign: stake.campaign,
      openSeed: () => openSessionSeed(this.options.keyring, session),
      newId: world.newId,
      createdAt: world.clock(),
    });
  }

  /**
   * The bet of a round: a ladder amount, or a free round's (the player's
   * oldest live campaign on this game, `finished` on its last round).
   * Outcomes: the stake | INVALID_REQUEST | CAMPAIGN_FINISHED
   */
  private async stakeOf(
    session: GameSessionRow,
    input: { bet?: string; free?: boolean },
  ): Promise<{ ok: true; betMinor: bigint; campaign: { row: CampaignRow; finished: boolean } | undefined } | Refusal> {
    const { catalog, world } = this.options;
    const decimals = this.views.decimalsOf(session);
    if (input.free) {
      if (session.mode === 'fun' || session.playerId === null) return refuse('CAMPAIGN_FINISHED', 'free rounds are played with real sessions only');
      const offer = await this.views.freeRoundsOf(session, world.clock());
      if (!offer) return refuse('CAMPAIGN_FINISHED', 'no free rounds are left', formatMinor(session.balanceMinor, decimals));
      return { ok: true, betMinor: offer.campaign.betMinor, campaign: { row: offer.campaign, finished: offer.left === 1 } };
    }
    if (input.bet === undefined) return refuse('INVALID_REQUEST', 'bet: a bet from the ladder is needed unless free is true');
    const bet = minorOfText(input.bet, decimals);
    const ladder = catalog.ladder(session.game, session.currency) ?? [];
    if (bet === undefined || !ladder.includes(bet)) return refuse('INVALID_REQUEST', `bet: ${input.bet} is not on the ${session.currency} bet ladder`);
    return { ok: true, betMinor: bet, campaign: undefined };
  }

  /**
   * A reels round: drawn whole from the session's seeds, written with its
   * bet's request (real) or its balance's move (fun), then answered once the
   * bet and the base spin's win are booked, or pending (the app's 202)
   * after limits.roundSettleMsMax. Outcomes: play view | INVALID_REQUEST |
   * INSUFFICIENT_FUNDS | CAMPAIGN_FINISHED | the operator's refusals | SERVICE_UNAVAILABLE
   */
  private async playReels(session: GameSessionRow, game: ReelsGameSettings, input: ReelsPlayRequest): Promise<ReelsPlayView | Refusal> {
    const { store, world, config } = this.options;
    const decimals = this.views.decimalsOf(session);
    const stake = await this.stakeOf(session, input);
    if (!stake.ok) return stake;
    const { round } = planReelsRound({
      game,
      session,
      betMinor: stake.betMinor,
      clientSeed: input.clientSeed,
      roundId: world.newId(),
      createdAt: world.clock(),
      newId: world.newId,
      campaign: stake.campaign,
      decimals,
      serverSeed: openSessionSeed(this.options.keyring, session),
      sealForRound: this.options.sealing.sealForRound,
    });
    const begun = await store.beginReelsRound(round, this.options.sealing.fresh(session.sessionId, session.nonce + 1));
    if (!begun.ok) return begun.conflict === 'insufficient-funds' ? this.fundsRefusal(begun.session, round.betMinor) : this.conflictRefusal(begun);
    // Its completion is due from now on, should its player leave it (round-completion.ts).
    if (begun.round.reels!.freeSpins > 0) this.options.completion?.roundAdded(begun.round.createdAt);
    if (session.mode === 'fun') return this.views.reelsPlayView(session.pk, begun.round);
    // As a dice round: nothing is sent before it is durable; then the player waits for the bet and the base spin's win.
    await store.durable();
    this.options.delivery?.poke();
    const after = await this.waits.waitFor(begun.round.pk, config.limits.roundSettleMsMax, reelsBaseBooked);
    if (after.status === 'refused') return roundRefusal(after, decimals);
    return this.views.reelsPlayView(session.pk, after);
  }

  private fundsRefusal(session: GameSessionRow, betMinor: bigint): Refusal {
    const decimals = this.views.decimalsOf(session);
    const balance = formatMinor(session.balanceMinor, decimals);
    return refuse('INSUFFICIENT_FUNDS', `bet ${formatMinor(betMinor, decimals)} exceeds balance ${balance}`, balance);
  }

  private async playFun(session: GameSessionRow, plan: { round: NewRound }): Promise<PlayView | Refusal> {
    const { store } = this.options;
    const logged = await store.playFunRound(plan.round, this.options.sealing.fresh(session.sessionId, session.nonce + 1));
    if (!logged.ok) return logged.conflict === 'insufficient-funds' ? this.fundsRefusal(logged.session, plan.round.betMinor) : this.conflictRefusal(logged);
    return this.views.playView(await store.session(session.pk), logged.round);
  }

  /**
   * A round whose write found the session or the campaign moved since it
   * was planned (another request got there first, on this node or another):
   * nothing was written, and playing again plans it anew.
   */
  private conflictRefusal(write: Extract<RoundWrite, { ok: false }>): Refusal {
    const balance = formatMinor(write.session.balanceMinor, this.views.decimalsOf(write.session));
    if (write.conflict === 'campaign-used') {
      return refuse('SERVICE_UNAVAILABLE', "the player's free rounds were used at the same time by another game: try again", balance);
    }
    return refuse('SERVICE_UNAVAILABLE', 'another round of this game session was played at the same time: try again', balance);
  }

  private async playReal(session: GameSessionRow, plan: { round: NewRound }): Promise<PlayView | Refusal> {
    const { store, config } = this.options;
    const decimals = this.views.decimalsOf(session);
    const round = plan.round;
    // docs/protocol.md §6: bet and win of a one-step game in one request that finishes the round.
    const body = diceRoundBody(round, session, decimals);
    const begun = await store.beginRealRound({ ...round, requestBody: body }, this.options.sealing.fresh(session.sessionId, session.nonce + 1));
    if (!begun.ok) return this.conflictRefusal(begun);
    const pending = begun.round;
    // Never send a round the provider could still lose (a crash would forget a bet the operator booked): the outbox claims only durable items.
    await store.durable();
    this.options.delivery?.poke();
    const finished = await this.waits.waitFor(pending.pk, config.limits.roundSettleMsMax, roundFinished);
    // Still pending: the round is kept in the outbox and delivered without its player; the page follows it (state).
    if (finished.status === 'pending') return this.views.playView(await store.session(session.pk), finished);
    if (finished.status === 'refused') return roundRefusal(finished, decimals);
    // The operator answered 200, so it booked the round; only its balance is unknown (unreadable, or a round settled by hand).
    if (finished.balanceAfterMinor === null)
      return refuse('SERVICE_UNAVAILABLE', "the round was booked but the casino's answer gave no balance that can be read exactly");
    return this.views.playView(await store.session(session.pk), finished);
  }
}
