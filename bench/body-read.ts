/**
 * `node dist/bench/body-read.js`: the cost of reading one typical /transaction
 * body (the bench's single bet, 12 members, about 260 bytes), in ns per body:
 * what readBody does (UTF-8 check, the nesting scan, JSON.parse, the I-JSON
 * scan, schema, exact money), and the nesting scan, the I-JSON scan and
 * JSON.parse alone for scale. Each figure is
 * the median of RUNS runs of BODIES_PER_RUN bodies, after a warm-up. A
 * micro-benchmark on one thread: compare figures taken on the same host, one
 * after the other.
 */
import { randomUUID } from 'node:crypto';
import { TransactionRequest } from '../src/protocol/schemas.js';
import { nestingRefusal, scanIJson } from '../src/protocol/i-json.js';
import { compileBody } from '../src/protocol/validate.js';

const RUNS = 15;
const BODIES_PER_RUN = 200_000;
/** Distinct bodies cycled through, so that no run reads one text over and over. */
const BODY_POOL_SIZE = 64;

const reader = compileBody(TransactionRequest, (value) =>
  value.transactions.flatMap((tx, i): [string, number | undefined][] => [
    [`transactions[${i}].amount`, tx.amount],
    [`transactions[${i}].jpAmount`, tx.jpAmount],
  ]),
);

function singleBet(): string {
  return JSON.stringify({
    sessionId: randomUUID(),
    playerId: `player-${randomUUID().slice(0, 8)}`,
    game: 'dice',
    transactions: [{ id: randomUUID(), type: 'bet', amount: 1.5, jpAmount: 0.01 }],
    round: { id: randomUUID(), finished: true },
    regulatory: '',
  });
}

const texts = Array.from({ length: BODY_POOL_SIZE }, singleBet);
const bytes = texts.map((text) => Buffer.from(text, 'utf8'));

/** Median ns per call of `each(i)` over RUNS runs; a result is kept so the work cannot be skipped. */
function measure(each: (i: number) => unknown): number {
  let sink = 0;
  const once = () => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < BODIES_PER_RUN; i++) if (each(i % BODY_POOL_SIZE)) sink++;
    return Number(process.hrtime.bigint() - started) / BODIES_PER_RUN;
  };
  once();
  const runs = Array.from({ length: RUNS }, once).sort((a, b) => a - b);
  if (sink < 0) console.log(sink);
  return runs[Math.floor(RUNS / 2)]!;
}

const first = reader.read(bytes[0]!);
if (!first.ok) throw new Error(`the bench body is refused: ${first.detail}`);
console.log(`body: ${bytes[0]!.length} bytes`);
console.log(`read (as readBody): ${measure((i) => reader.read(bytes[i]!).ok).toFixed(0)} ns per body`);
console.log(`nesting scan alone: ${measure((i) => nestingRefusal(texts[i]!) === undefined).toFixed(0)} ns per body`);
console.log(`I-JSON scan alone:  ${measure((i) => scanIJson(texts[i]!).ok).toFixed(0)} ns per body`);
console.log(`JSON.parse alone:   ${measure((i) => JSON.parse(texts[i]!) !== null).toFixed(0)} ns per body`);
