/**
 * The public API of the `wagerlink` package: what an integrator imports to
 * talk to the other side of the interface. The operator client (a provider
 * calling an operator's wallet), the provider client (an operator calling a
 * provider), the signature of docs/protocol.md §2 for whoever serves an endpoint
 * of their own, exact money conversion, the wire schemas with their types,
 * the error registry of §3, and the conformance kit that checks either side.
 *
 * Everything here is pure protocol code or a client over undici. The
 * servers, their stores and the CLI stay out, so that importing this module
 * loads none of better-sqlite3, postgres, fastify or pino (a test checks
 * it); they are reached through the `wagerlink` command instead. Each name
 * exported here is a promise kept across versions: add names with care,
 * and prefer leaving a helper internal to exporting one nobody needs.
 */
import type { Static } from '@sinclair/typebox';
import * as schemas from './protocol/schemas.js';

// --- Clients (src/clients) ---

export {
  createOperatorClient,
  type BalanceAnswer,
  type Body,
  type OperatorClient,
  type OperatorClientOptions,
  type SessionAnswer,
} from './clients/operator-client.js';
export { createProviderClient, type GameBets, type ProviderClient, type ProviderClientOptions } from './clients/provider-client.js';
export {
  ANSWER_MS_MAX,
  NO_RETRY,
  PROTOCOL_RETRY,
  RETRY_STATUSES,
  type CallOutcome,
  type ClientWorld,
  type Refused,
  type RetryPolicy,
} from './clients/http-call.js';

// --- The conformance kit (docs/conformance.md) ---

// Either side's cases run from a program of one's own (a CI job, a test
// suite), with the report the command prints and writes. The kit is built on
// the clients and the protocol module alone, so it brings no server code.
export { runOperatorConformance, type KitWorld, type OperatorTarget, type RunOptions } from './conformance/operator-runner.js';
export { RunNotStarted, type RunEvent } from './conformance/runner.js';
export { runProviderConformance, type ProviderRunOptions, type ProviderTarget } from './conformance/provider-runner.js';
export type { FixturesFile, FixturesSetting } from './conformance/fixtures.js';
// A run fails when a case fails or the check before any case does (the command's exit code 1).
export { runFailed, type CaseResult, type RunReport } from './conformance/report.js';
export { writeReport } from './conformance/reporters/files.js';

// --- Signing (docs/protocol.md §2) ---

// The bearer helpers of signing.ts stay internal: they are how our servers
// keep their token sets, not part of what the protocol asks of a caller.
export { SIGNATURE_HEADER, sign, signingSecrets, verifySignature, type SigningSecret } from './protocol/signing.js';

// --- Money (docs/protocol.md §4) ---

// Conversion between the wire's decimal numbers and bigint minor units, the
// currency table, and the limits an amount must keep. The ledger's own
// column bounds and the body scanners of the servers stay internal.
export {
  AMOUNT_MAJOR_MAX,
  CURRENCIES,
  DEFAULT_CRYPTO_DECIMALS,
  SIGNIFICANT_DIGITS_MAX,
  amountToMinor,
  createCurrencies,
  decimalFromNumber,
  decimalFromString,
  formatMinor,
  toMinor,
  type AmountProblem,
  type Currencies,
  type Decimal,
} from './protocol/money.js';
// A body given as text is sent byte for byte; these write one whose amounts
// are exact number text of any length, which a JavaScript number is not.
export { raw, stringify, type RawJsonNumber } from './protocol/json.js';

// --- Errors (docs/protocol.md §3) ---

export { ERRORS, ERROR_CODES, errorType, isRetryableStatus, type ErrorCode } from './protocol/errors.js';

// --- Wire schemas (docs/protocol.md §5–§8): TypeBox values and their types ---

// The back office's schemas (docs/protocol.md §11) belong to our operator server,
// not to the interface between the two sides; openapi/operator.json has them.
export {
  AuthenticateRequest,
  AuthenticateResponse,
  BalanceNumber,
  BalanceResponse,
  CountryCode,
  CurrencyCode,
  GameBetsRequest,
  GameSlug,
  GenerateLaunchUrlRequest,
  Money,
  PayoutRequest,
  PlayerId,
  REGULATORY_LENGTH_MAX,
  TRANSACTIONS_PER_REQUEST_MAX,
  TransactionRequest,
  Uuid,
} from './protocol/schemas.js';

// schemas.ts names a type only for the bodies its own code reads; the parts
// and answers below get theirs here, under the same name as the schema.
export const WalletTransaction = schemas.WalletTransaction;
export type WalletTransaction = Static<typeof schemas.WalletTransaction>;
export const Round = schemas.Round;
export type Round = Static<typeof schemas.Round>;
export const TransactionCampaign = schemas.TransactionCampaign;
export type TransactionCampaign = Static<typeof schemas.TransactionCampaign>;
export const LaunchUrls = schemas.LaunchUrls;
export type LaunchUrls = Static<typeof schemas.LaunchUrls>;
export const GenerateLaunchUrlResponse = schemas.GenerateLaunchUrlResponse;
export type GenerateLaunchUrlResponse = Static<typeof schemas.GenerateLaunchUrlResponse>;
export const GameBetsResponse = schemas.GameBetsResponse;
export type GameBetsResponse = Static<typeof schemas.GameBetsResponse>;
/** A problem+json body as it is on the wire (RFC 9457 with `code`; `balance` a JSON number). */
export const ProblemResponse = schemas.ProblemResponse;
export type ProblemResponse = Static<typeof schemas.ProblemResponse>;
