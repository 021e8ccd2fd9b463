// The reels page's calls to the provider's game API (docs/provider.md, "The
// reels game's API") and what it reads of their answers: every field name
// of the wire is in this file, so that a change of shape is made here once.
// No DOM: a test imports it to check the strips below against the server's.

/**
 * The reels' strips, as src/game/reels.ts has them (test/provider/reels-page.test.ts
 * fails when they drift apart): the browser recomputes a revealed round's
 * windows from its seeds with them.
 */
export const STRIPS = ['-OPLSC-MCJMCMCBOBOLPCMP7OCSOMLMP', 'MPCOMSO-MPOBMLJ-PBMC7OCMC-LOSCPL', 'POPJ-CL7MCBC-OMOM-SMPSLOSMBPOCML'];
/** The rows a line crosses on reels 1, 2 and 3 (0 top, 1 middle, 2 bottom); line 1 is the middle row. As src/game/reels.ts. */
export const LINES = [
  [1, 1, 1],
  [0, 0, 0],
  [2, 2, 2],
  [0, 1, 2],
  [2, 1, 0],
];
/** A window's rows around a stop: the one above, the stop, the one below. */
const ROW_OFFSETS = [-1, 0, 1];

/** window[reel][row] of the stops, as src/game/reels.ts windowOf. */
export function windowOf(stops) {
  return STRIPS.map((strip, reel) => ROW_OFFSETS.map((offset) => strip[(stops[reel] + offset + strip.length) % strip.length]));
}

/**
 * The page's API: `call(path, body)` posts {token, ...body} to <page>/api/<path>
 * and resolves with the JSON (its httpStatus added) or throws the problem.
 */
export function reelsApi(call) {
  return {
    open: async () => sessionOf(await call('open', {})),
    state: async () => sessionOf(await call('state', {})),
    /** A paid spin at `bet`, or (free) a free round of the player's campaign. */
    play: async ({ bet, free, clientSeed }) => playOf(await call('play', free ? { free: true, clientSeed } : { bet, clientSeed })),
    freeSpin: async (roundId) => playOf(await call('free-spin', { roundId })),
  };
}

/**
 * A spin as the page draws it: window[reel][row] of symbol letters, the
 * lines it paid ({line, symbols}), its win (decimal text) and the free spins
 * it added to the feature.
 */
function spinOf(view) {
  if (!view) return null;
  return {
    window: view.window,
    lines: view.lines.map((line) => ({ line: line.line, symbols: line.symbols })),
    win: view.win,
    awarded: view.freeSpinsAwarded,
  };
}

/**
 * A round as the page keeps it. `delivering`: a request of the round is on
 * its way to the casino and the page waits for it (stage betting: nothing of
 * the outcome is known yet; closing: the feature's wins). `featureLeft`: free
 * spins the player has to play (stage feature), else 0.
 */
export function roundOf(view) {
  const feature = view.feature
    ? {
        spins: view.feature.spins.map(spinOf),
        played: view.feature.played,
        left: view.feature.left,
        total: view.feature.total,
        win: view.feature.win,
        completed: view.feature.completedByProvider,
      }
    : null;
  return {
    roundId: view.roundId,
    nonce: view.nonce,
    stage: view.stage,
    bet: view.bet,
    free: view.free,
    at: view.at,
    serverSeedHash: view.serverSeedHash,
    clientSeed: view.clientSeed,
    serverSeed: view.serverSeed,
    base: spinOf(view.base),
    jackpotWin: view.jackpotWin ?? null,
    feature,
    win: view.win ?? null,
    delivering: view.stage === 'betting' || view.stage === 'closing',
    featureLeft: view.stage === 'feature' && feature ? feature.left : 0,
  };
}

function sessionOf(view) {
  return {
    mode: view.mode,
    game: view.game,
    currency: view.currency,
    decimals: view.decimals,
    balance: view.balance,
    ladder: view.ladder,
    defaultBet: view.defaultBet,
    language: view.language,
    urls: view.urls,
    fairness: view.fairness,
    jackpot: jackpotOf(view),
    unfinished: view.unfinished ? roundOf(view.unfinished) : null,
    rounds: (view.rounds ?? []).map(roundOf),
    freeRounds: view.freeRounds ?? null,
    refreshIntervalMs: view.refreshIntervalMs ?? null,
  };
}

function playOf(view) {
  return {
    pending: view.httpStatus === 202,
    round: roundOf(view.round),
    balance: view.balance,
    fairness: view.fairness,
    freeRounds: view.freeRounds ?? null,
    jackpot: jackpotOf(view),
  };
}

/** The jackpot pool shown (decimal text), or null when the answer carries none. */
function jackpotOf(view) {
  return view.jackpot?.pool ?? null;
}
