/**
 * Sessions and expiry (docs/protocol.md §5): a launch key opens one session
 * and a reload answers the same one; keys of another game, unknown keys and
 * sessions, other players and blocked players are refused; an idle session
 * refuses bets but takes wins and payouts. The cases marked `clock` wait for
 * keys and sessions to expire, as long as the fixtures say they live.
 */
import { authenticate, call, operatorCases, probe, refusal, tx, UNKNOWN_SESSION } from './define.js';

const OTHER_GAME = 'conformance-kit-other-game';
const EXPIRED = refusal('SESSION_EXPIRED', 'unchanged');

export const SESSIONS_CASES = operatorCases('sessions', [
  {
    id: 'authenticate-opens-session',
    title: "a fresh launch key opens a session naming the player, the player's currency and balance",
    clause: 'docs/protocol.md §5',
    steps: [
      { kind: 'session', say: 'mint a launch key', name: 'k', open: false },
      call({
        say: 'authenticate with it',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: ctx.key('k') }),
        expect: { status: 200, session: 'new' },
      }),
    ],
  },
  {
    id: 'reload-same-session',
    title: 'authenticating again with the same key answers the same session',
    clause: 'docs/protocol.md §5.1',
    steps: [
      call({
        say: "authenticate again with the main session's key",
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx),
        expect: { status: 200, session: { sameAs: 'main' } },
      }),
    ],
  },
  {
    id: 'two-sessions-one-wallet',
    title: 'two sessions of one player book against the same balance',
    clause: 'docs/protocol.md §5.2',
    steps: [
      { kind: 'session', say: 'open a second session of the player with a new key', name: 'second' },
      tx('bet 1 through the second session', { session: 'second', transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
      tx('bet 1 through the first', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
    ],
  },
  {
    id: 'unknown-key',
    title: 'a launch key the operator never issued is refused with 401 INVALID_LAUNCH_KEY',
    clause: 'docs/protocol.md §5.1',
    steps: [
      call({
        say: 'authenticate with a made-up key',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: `conformance-kit-unknown-${ctx.fresh()}` }),
        expect: { status: 401, code: 'INVALID_LAUNCH_KEY', balance: 'any' },
      }),
    ],
  },
  {
    id: 'key-of-other-game',
    title: 'a key used for another game than its own is refused with 403 SESSION_MISMATCH and stays unused',
    clause: 'docs/protocol.md §5.1',
    steps: [
      { kind: 'session', say: 'mint a launch key', name: 'k', open: false },
      call({
        say: 'authenticate with it naming another game',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: ctx.key('k'), game: OTHER_GAME }),
        expect: { status: 403, code: 'SESSION_MISMATCH' },
      }),
      call({
        say: 'authenticate with it naming its own game',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: ctx.key('k') }),
        expect: { status: 200, session: 'new' },
      }),
    ],
  },
  {
    id: 'unknown-session',
    title: 'a /transaction naming a session nobody issued is refused with 404 SESSION_NOT_FOUND',
    clause: 'docs/protocol.md §5.2',
    steps: [
      tx(
        'win 1 in an unknown session',
        { transactions: [{ type: 'win', amount: '1' }], override: UNKNOWN_SESSION },
        { status: 404, code: 'SESSION_NOT_FOUND' },
      ),
      probe(),
    ],
  },
  {
    id: 'other-player-id',
    title: "a /transaction naming another playerId than the session's is refused with 403 SESSION_MISMATCH",
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'win 1 naming another playerId',
        { transactions: [{ type: 'win', amount: '1' }], override: { playerId: 'conformance-kit-someone-else' } },
        { status: 403, code: 'SESSION_MISMATCH', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'other-game',
    title: "a /transaction naming another game than the session's is refused with 403 SESSION_MISMATCH",
    clause: 'docs/protocol.md §6.9',
    steps: [
      tx(
        'win 1 naming another game',
        { transactions: [{ type: 'win', amount: '1' }], override: { game: OTHER_GAME } },
        { status: 403, code: 'SESSION_MISMATCH', balance: 'unchanged' },
      ),
      probe(),
    ],
  },
  {
    id: 'blocked-cannot-authenticate',
    title: 'a blocked player cannot authenticate, not even by reloading an open session (403 PLAYER_BLOCKED), and can once unblocked',
    clause: 'docs/protocol.md §5.1',
    needs: ['block'],
    steps: [
      { kind: 'session', say: 'mint a launch key', name: 'k', open: false },
      { kind: 'block', say: 'block the player' },
      call({
        say: 'authenticate with the new key',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: ctx.key('k') }),
        expect: { status: 403, code: 'PLAYER_BLOCKED' },
      }),
      call({ say: 'reload the open session', endpoint: '/authenticate', body: (ctx) => authenticate(ctx), expect: { status: 403, code: 'PLAYER_BLOCKED' } }),
      { kind: 'unblock', say: 'unblock the player' },
      call({
        say: 'authenticate with the new key',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: ctx.key('k') }),
        expect: { status: 200, session: 'new' },
      }),
    ],
  },
  {
    id: 'blocked-bets-refused',
    title: "a blocked player's bets are refused with 403 PLAYER_BLOCKED while wins land",
    clause: 'docs/protocol.md §6.9',
    needs: ['block'],
    steps: [
      { kind: 'block', say: 'block the player' },
      tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 403, code: 'PLAYER_BLOCKED', balance: 'unchanged' }),
      tx('win 2', { transactions: [{ type: 'win', amount: '2' }] }, { status: 200, balance: '+2' }),
      { kind: 'unblock', say: 'unblock the player' },
      tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
    ],
  },
  {
    id: 'launch-key-expires',
    title: 'a launch key not used within its life is refused with 401 INVALID_LAUNCH_KEY',
    clause: 'docs/protocol.md §5.1',
    needs: ['clock'],
    steps: [
      { kind: 'session', say: 'mint a launch key', name: 'late', open: false },
      { kind: 'wait', say: 'wait until it has expired', until: 'launch-key-expired' },
      call({
        say: 'authenticate with it',
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx, { key: ctx.key('late') }),
        expect: { status: 401, code: 'INVALID_LAUNCH_KEY' },
      }),
    ],
  },
  {
    id: 'expired-refuses-bets',
    title: 'an idle session refuses bets with 403 SESSION_EXPIRED but takes wins, and a win does not revive it',
    clause: 'docs/protocol.md §5.2',
    needs: ['clock'],
    steps: [
      { kind: 'wait', say: 'wait until the session has expired', until: 'session-expired' },
      tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, EXPIRED),
      tx('win 2.5', { transactions: [{ type: 'win', amount: '2.5' }] }, { status: 200, balance: '+2.5' }),
      tx('bet 1 again', { transactions: [{ type: 'bet', amount: '1' }] }, EXPIRED),
      { kind: 'probe', say: 'the balance, through a new session', fresh: true },
    ],
  },
  {
    id: 'expired-reload-refused',
    title: 'reloading a session that has expired is refused with 401 INVALID_LAUNCH_KEY',
    clause: 'docs/protocol.md §5.1',
    needs: ['clock'],
    steps: [
      { kind: 'wait', say: 'wait until the session has expired', until: 'session-expired' },
      call({
        say: "authenticate again with the session's key",
        endpoint: '/authenticate',
        body: (ctx) => authenticate(ctx),
        expect: { status: 401, code: 'INVALID_LAUNCH_KEY' },
      }),
    ],
  },
  {
    id: 'expired-mixed-request',
    title: 'a win and a bet in one request on an expired session are refused together: nothing is applied',
    clause: 'docs/protocol.md §5.2',
    needs: ['clock'],
    steps: [
      { kind: 'wait', say: 'wait until the session has expired', until: 'session-expired' },
      tx(
        'win 5, then bet 1',
        {
          transactions: [
            { type: 'win', amount: '5' },
            { type: 'bet', amount: '1' },
          ],
        },
        EXPIRED,
      ),
      { kind: 'probe', say: 'nothing was booked (through a new session)', fresh: true },
    ],
  },
  {
    id: 'expired-refusal-final',
    title: 'a bet refused with SESSION_EXPIRED answers the same when sent again',
    clause: 'docs/protocol.md §6.4',
    needs: ['clock'],
    steps: [
      { kind: 'wait', say: 'wait until the session has expired', until: 'session-expired' },
      tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, EXPIRED, { keep: 'late' }),
      call({ say: 'send it again', endpoint: '/transaction', resend: 'late', expect: EXPIRED }),
      { kind: 'probe', say: 'nothing was booked (through a new session)', fresh: true },
    ],
  },
  {
    id: 'activity-keeps-alive',
    title: 'a bet is activity: a session used within its idle time stays active past it',
    clause: 'docs/protocol.md §5.2',
    needs: ['clock'],
    steps: [
      { kind: 'wait', say: 'wait 60 % of the idle time', until: 'session-expired', fraction: 0.6 },
      tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
      { kind: 'wait', say: 'wait 60 % of the idle time again (120 % since the session opened)', until: 'session-expired', fraction: 0.6 },
      tx('bet 1', { transactions: [{ type: 'bet', amount: '1' }] }, { status: 200, balance: '-1' }),
    ],
  },
]);
