/** Every case of the operator's side, area by area in the order of OPERATOR_AREAS. */
import type { OperatorCase } from '../case-model.js';
import { ATOMICITY_ORDER_CASES } from './atomicity-order.js';
import { AUTH_CASES } from './auth.js';
import { BETS_WINS_CASES } from './bets-wins.js';
import { CONCURRENCY_CASES } from './concurrency.js';
import { FREE_BETS_CASES } from './free-bets.js';
import { IDEMPOTENCY_CASES } from './idempotency.js';
import { LIMITS_CASES } from './limits.js';
import { PAYOUTS_CASES } from './payouts.js';
import { PRECISION_CASES } from './precision.js';
import { REPLAY_CASES } from './replay.js';
import { ROUNDS_CASES } from './rounds.js';
import { SESSIONS_CASES } from './sessions.js';
import { VALIDATION_CASES } from './validation.js';

export const OPERATOR_CASES: readonly OperatorCase[] = [
  ...AUTH_CASES,
  ...VALIDATION_CASES,
  ...BETS_WINS_CASES,
  ...IDEMPOTENCY_CASES,
  ...ATOMICITY_ORDER_CASES,
  ...ROUNDS_CASES,
  ...FREE_BETS_CASES,
  ...PAYOUTS_CASES,
  ...SESSIONS_CASES,
  ...PRECISION_CASES,
  ...LIMITS_CASES,
  ...CONCURRENCY_CASES,
  ...REPLAY_CASES,
];
