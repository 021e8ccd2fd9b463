/**
 * Concurrency (docs/protocol.md §6.2–§6.4, §7): requests that race each
 * other, each on a connection of its own, are applied exactly once and never
 * overdraw. A provider resends on a time-out while the first attempt may
 * still be in flight, so an operator meets these races in normal operation.
 */
import type { Body, CaseContext, OperatorEndpoint, ParallelAnswer, ParallelStep } from '../case-model.js';
import { operatorCases, payout, probe, transaction, tx, type TransactionSpec } from './define.js';

/**
 * Requests fired together in a race: enough that they overlap inside the
 * operator on any machine, few enough not to look like a load test.
 */
const RACERS = 20;
/** Distinct bets racing for a balance that pays for BETS_PAID of them. */
const BETS_RACING = 25;
const BETS_PAID = 10;

function describe(answers: readonly ParallelAnswer[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const key = answer.code === undefined ? String(answer.status) : `${answer.status} ${answer.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count} × ${key}`).join(', ');
}

/** Every answer is 200 with the balance `expected` (minor units). */
function allAnswer(expected: (ctx: CaseContext) => bigint): (answers: readonly ParallelAnswer[], ctx: CaseContext) => string[] {
  return (answers, ctx) => {
    const want = expected(ctx);
    const wrong = answers.filter((answer) => answer.status !== 200 || answer.balance !== want);
    if (wrong.length === 0) return [];
    return [
      `expected ${answers.length} × 200 with the balance after one booking, got ${describe(answers)}; balances shown: ${answers.map((a) => a.balance ?? '-').join(', ')} (minor units, expected ${want})`,
    ];
  };
}

const BET = (amount: string): TransactionSpec => ({ transactions: [{ id: 'b1', type: 'bet', amount }], round: 'r1' });

/** One request sent RACERS times at once: every answer is 200 with the balance after one booking of `change` ("-12.5"). */
function sameAtOnce(say: string, endpoint: OperatorEndpoint, body: (ctx: CaseContext) => Body, change: string): ParallelStep {
  const minor = (ctx: CaseContext) => (change.startsWith('-') ? -ctx.minor(change.slice(1)) : ctx.minor(change.replace(/^\+/, '')));
  return {
    kind: 'parallel',
    say: `${say}, ${RACERS} times at once`,
    requests: (ctx) => {
      const built = body(ctx);
      return Array.from({ length: RACERS }, () => ({ endpoint, body: built }));
    },
    check: allAnswer((ctx) => ctx.balance() + minor(ctx)),
    change: (_answers, ctx) => minor(ctx),
  };
}

export const CONCURRENCY_CASES = operatorCases('concurrency', [
  {
    id: 'identical-transactions',
    title: `${RACERS} identical /transaction requests at once are booked once`,
    clause: 'docs/protocol.md §6.4',
    steps: [sameAtOnce('send one bet of 12.5', '/transaction', (ctx) => transaction(ctx, BET('12.5')), '-12.5'), probe('the bet was debited once')],
  },
  {
    id: 'racing-bets',
    title: `${BETS_RACING} bets of 10 at once on a balance of 100: ${BETS_PAID} pass, the rest are refused with 402, the balance ends at 0`,
    clause: 'docs/protocol.md §6.3',
    steps: [
      {
        kind: 'parallel',
        say: `send ${BETS_RACING} distinct bets of 10, each in a round of its own, at once`,
        requests: (ctx) =>
          Array.from({ length: BETS_RACING }, () => ({
            endpoint: '/transaction' as const,
            body: transaction(ctx, { transactions: [{ type: 'bet', amount: '10' }] }),
          })),
        check: (answers, ctx) => {
          const problems: string[] = [];
          const passed = answers.filter((answer) => answer.status === 200);
          const refused = answers.filter((answer) => answer.status === 402 && answer.code === 'INSUFFICIENT_FUNDS');
          if (passed.length !== BETS_PAID || refused.length !== BETS_RACING - BETS_PAID) {
            problems.push(`expected ${BETS_PAID} × 200 and ${BETS_RACING - BETS_PAID} × 402 INSUFFICIENT_FUNDS, got ${describe(answers)}`);
          }
          // One after another, the paid bets leave each of 90, 80 ... 0 once.
          const seen = passed.map((answer) => answer.balance).sort((x, y) => (x! < y! ? -1 : x! > y! ? 1 : 0));
          const ten = ctx.minor('10');
          const want = Array.from({ length: BETS_PAID }, (_, i) => BigInt(i) * ten);
          if (passed.length === BETS_PAID && seen.some((balance, i) => balance !== want[i])) {
            problems.push(`the bets that passed answered the balances ${seen.join(', ')} (minor units), not each of ${want.join(', ')} once`);
          }
          if (answers.some((answer) => answer.balance !== undefined && answer.balance < 0n)) problems.push('an answer showed a negative balance');
          return problems;
        },
        change: (_answers, ctx) => -ctx.balance(),
      },
      probe('the balance is 0'),
    ],
  },
  {
    id: 'identical-payouts',
    title: `${RACERS} identical /payout requests at once are credited once`,
    clause: 'docs/protocol.md §7',
    steps: [
      sameAtOnce('send one payout of 25.05', '/payout', (ctx) => payout(ctx, { id: 'p1', amount: '25.05' }), '+25.05'),
      probe('the payout was credited once'),
    ],
  },
  {
    id: 'seen-and-new-racing',
    title: 'requests mixing a seen id with new ones, racing each other, apply the new ones once',
    clause: 'docs/protocol.md §6.4',
    steps: [
      tx(
        'bet 10 (b1) in the open round r1',
        { transactions: [{ id: 'b1', type: 'bet', amount: '10' }], round: { id: 'r1', finished: false } },
        { status: 200, balance: '-10' },
      ),
      sameAtOnce(
        'send [b1, win 3 (w1), bet 2 (b2)] finishing r1',
        '/transaction',
        (ctx) =>
          transaction(ctx, {
            transactions: [
              { id: 'b1', type: 'bet', amount: '10' },
              { id: 'w1', type: 'win', amount: '3' },
              { id: 'b2', type: 'bet', amount: '2' },
            ],
            round: 'r1',
          }),
        '+1',
      ),
      probe('w1 and b2 were booked once'),
    ],
  },
  {
    id: 'subset-superset-racing',
    title: 'a request and a superset of it, racing each other, apply each transaction once',
    clause: 'docs/protocol.md §6.4',
    steps: [
      {
        kind: 'parallel',
        say: `send [bet 10 (b1)] in the open round r1 and [b1, win 3, bet 2] finishing r1, ${RACERS} times in all, alternating, at once`,
        requests: (ctx) => {
          const subset = transaction(ctx, { transactions: [{ id: 'b1', type: 'bet', amount: '10' }], round: { id: 'r1', finished: false } });
          const superset = transaction(ctx, {
            transactions: [
              { id: 'b1', type: 'bet', amount: '10' },
              { id: 'w1', type: 'win', amount: '3' },
              { id: 'b2', type: 'bet', amount: '2' },
            ],
            round: 'r1',
          });
          return Array.from({ length: RACERS }, (_, i) => ({ endpoint: '/transaction' as const, body: i % 2 === 0 ? subset : superset }));
        },
        check: (answers, ctx) => {
          const afterSubset = ctx.balance() - ctx.minor('10');
          const afterAll = ctx.balance() - ctx.minor('9');
          // The subset answers after its own bet, or after everything once the superset is in; the superset always after everything.
          const wrong = answers.filter(
            (answer, i) => answer.status !== 200 || (i % 2 === 0 ? answer.balance !== afterSubset && answer.balance !== afterAll : answer.balance !== afterAll),
          );
          return wrong.length === 0
            ? []
            : [
                `expected 200 with ${afterSubset} or ${afterAll} (subset) and ${afterAll} (superset), got ${describe(answers)}; balances: ${answers.map((a) => a.balance ?? '-').join(', ')}`,
              ];
        },
        change: (_answers, ctx) => -ctx.minor('9'),
      },
      probe('each transaction was booked once'),
    ],
  },
  {
    id: 'conflicting-racing',
    title: 'two contents under one id, racing each other: one is booked, every other answer is 409 DUPLICATE_CONFLICT',
    clause: 'docs/protocol.md §6.4',
    steps: [
      {
        kind: 'parallel',
        say: `send bet 1 (b1) and bet 2 (b1) in round r1, ${RACERS} times in all, alternating, at once`,
        requests: (ctx) => {
          const one = transaction(ctx, BET('1'));
          const two = transaction(ctx, BET('2'));
          return Array.from({ length: RACERS }, (_, i) => ({ endpoint: '/transaction' as const, body: i % 2 === 0 ? one : two }));
        },
        check: (answers, ctx) => {
          const booked = answers.map((answer, i) => ({ answer, amount: i % 2 === 0 ? '1' : '2' })).filter(({ answer }) => answer.status === 200);
          const others = answers.filter((answer) => answer.status !== 200 && !(answer.status === 409 && answer.code === 'DUPLICATE_CONFLICT'));
          const amounts = new Set(booked.map(({ amount }) => amount));
          const problems: string[] = [];
          if (booked.length === 0 || amounts.size !== 1 || others.length > 0) {
            problems.push(
              `expected 200 for one of the two contents only and 409 DUPLICATE_CONFLICT for the rest, got ${describe(answers)} (200 for amounts ${[...amounts].join(' and ') || 'none'})`,
            );
          } else {
            const want = ctx.balance() - ctx.minor([...amounts][0]!);
            if (booked.some(({ answer }) => answer.balance !== want))
              problems.push(`the 200 answers show ${booked.map(({ answer }) => answer.balance).join(', ')}, not ${want}`);
          }
          return problems;
        },
        change: (answers, ctx) => -ctx.minor(answers.findIndex((answer) => answer.status === 200) % 2 === 0 ? '1' : '2'),
      },
      probe('the one content was booked once'),
    ],
  },
]);
