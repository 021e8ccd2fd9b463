/** Every case of the provider's side, area by area in the order of PROVIDER_AREAS. */
import type { ProviderCase } from './model.js';
import { AUTH_CASES } from './auth.js';
import { ERRORS_CASES } from './errors.js';
import { GAME_BETS_CASES } from './game-bets.js';
import { IP_WHITELIST_CASES } from './ip-whitelist.js';
import { LAUNCH_URL_CASES } from './launch-url.js';
import { VALIDATION_CASES } from './validation.js';

export const PROVIDER_CASES: readonly ProviderCase[] = [
  ...AUTH_CASES,
  ...IP_WHITELIST_CASES,
  ...VALIDATION_CASES,
  ...LAUNCH_URL_CASES,
  ...GAME_BETS_CASES,
  ...ERRORS_CASES,
];
