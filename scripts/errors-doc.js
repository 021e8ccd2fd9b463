// Writes docs/errors.md from the error registry (src/protocol/errors.ts:
// ERRORS and EXTRA_ERROR_CODES), so that the list of codes readers see is
// the list the servers answer from. Run it after a build, since it reads the
// compiled registry:
//
//   npx tsc -p tsconfig.json && node scripts/errors-doc.js
//
// test/protocol/errors-doc.test.ts fails when docs/errors.md differs from
// what this renders, and when a registered code has no description below.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const COMMAND = 'npx tsc -p tsconfig.json && node scripts/errors-doc.js';

/**
 * When each code is answered, in a sentence for people. The registry holds
 * the status and title; the circumstances are prose, so they live here,
 * keyed by code. A code the registry holds and this table lacks stops the
 * script, so a new code cannot reach the servers undocumented. A code
 * described here before the registry holds it is simply not rendered.
 */
export const DESCRIPTIONS = {
  INVALID_REQUEST:
    'Malformed JSON or HTTP framing, a body that is not I-JSON or nests more than 16 levels, a wrong type, a missing member, a bad UUID, a bad amount, or a value that breaks a rule of its field; `detail` names the member.',
  INVALID_SIGNATURE: '`X-Server-Authorization` is missing, malformed or not the HMAC-SHA256 of the body under an accepted secret.',
  INVALID_TOKEN: 'The `Authorization: Bearer` token is missing or not accepted.',
  INVALID_LAUNCH_KEY: '/authenticate: the launch key is unknown, expired, or its session has expired.',
  INSUFFICIENT_FUNDS: "A bet exceeds the player's running balance; in the back office, a withdrawal exceeds the balance.",
  IP_NOT_ALLOWED:
    "/generate-launch-url: the caller's address is on no operator's whitelist; operator's wallet calls: the caller's address is outside its integration's caller ranges.",
  INTEGRATION_OFF: "Operator's wallet calls: the access token's integration is switched off; every call of it is refused until it is made active again.",
  INTEGRATION_PAUSED:
    "Operator's wallet calls: the integration's bets are paused: a new bet and /authenticate are refused, wins and payouts are still booked; final, kept with the request's ids like the other refusals of a bet.",
  INTEGRATION_MISMATCH:
    "Operator's wallet calls: the session (of a /transaction, a /payout, or the one the launch key opened), or the round, belongs to another integration than the access token's; no balance is shown, and the refusal is not kept with the request's ids.",
  SESSION_EXPIRED: 'A bet on a session idle for longer than the session expiry.',
  SESSION_MISMATCH: "`playerId` or `game` differ from the session's; /authenticate: `game` differs from the launch key's.",
  PLAYER_BLOCKED: 'The player is blocked or self-excluded: bets and /authenticate are refused.',
  HOST_NOT_ALLOWED:
    "A server told its own addresses (the sandbox, on 127.0.0.1) was reached by another name in `Host`, or asked to change state from another site's page (`Origin`): how DNS rebinding reaches a server on the loopback interface.",
  SESSION_NOT_FOUND:
    'The `sessionId` was never issued by the operator; provider back office: the player has no real game session at the operator for a payout to name.',
  PLAYER_NOT_FOUND: 'Back office: no player has this id.',
  FORBIDDEN:
    "Back office: the staff account's role does not hold the action the route needs, or (provider) the item belongs to an operator outside the account's scope; `detail` names the action and the role it takes.",
  STAFF_LIMIT_EXCEEDED:
    "Back office: the amount is over the staff account's role limit for one call in that currency (docs/operator.md, docs/provider.md: staff limits); nothing was changed.",
  STAFF_NOT_FOUND: 'Back office: no staff account or token has this name or id.',
  INTEGRATION_NOT_FOUND: 'Back office: no stored integration has this id (the `default` integration of the environment is not one).',
  INTEGRATION_EXISTS: "Back office: an integration has this id already, stored or the environment's `default`.",
  STAFF_EXISTS: 'Back office: a staff account has this name already (names are never reused, so that the audit log names one person).',
  GAME_NOT_FOUND: 'An unknown game slug; `detail` lists the games.',
  WALLET_NOT_FOUND: '`walletId` is not registered to the operator.',
  NOT_FOUND: 'No such path.',
  METHOD_NOT_ALLOWED: 'The path exists, but not with this method; the `Allow` header lists the methods it takes.',
  REQUEST_TIMEOUT: "The request's headers and body did not arrive within the receiver's time-out; the connection is closed.",
  DUPLICATE_CONFLICT: 'A transaction id, `payoutId` or back-office adjustment id seen before with other content.',
  ROUND_CLOSED: 'New transactions for a round that is finished; game page: a free spin asked of a round that has none left to play.',
  ROUND_MISMATCH: 'The round id already belongs to another player or game.',
  CAMPAIGN_FINISHED: 'A freeBets bet after its campaign finished for the player.',
  PLAYER_EXISTS: 'Back office: the player id is taken.',
  STATE_CONFLICT: "Provider back office: the outbox item's state does not allow the action (it is in flight, or already has a final outcome).",
  ROUND_UNFINISHED: "Game page: the launch's previous reels round still has free spins to play; they are played (`/api/free-spin`) before a new round starts.",
  PAYLOAD_TOO_LARGE: "The request body is over the limit (the player-facing APIs' own is 8 KiB).",
  URI_TOO_LONG: "A path or path parameter is over the receiver's limit.",
  UNSUPPORTED_MEDIA_TYPE: 'No body, or a `Content-Type` other than `application/json`.',
  UNSUPPORTED_CURRENCY: 'No bet ladder for a currency (`detail` lists them); in the back office, a currency the wallet does not hold.',
  RATE_LIMITED:
    "Too many requests; `Retry-After` says when to resend. Wagerlink's player-facing APIs (the game pages', the sandbox lobby's) answer it per address and per launch.",
  HEADERS_TOO_LARGE: "The request line and headers are over the receiver's limit.",
  INTERNAL_ERROR: 'A bug in the receiver; nothing was applied.',
  SERVICE_UNAVAILABLE: 'Overloaded, storage unavailable, or shutting down; nothing was applied.',
};

/** Registered codes that DESCRIPTIONS lacks, in registry order. */
export function undescribedCodes(registry) {
  return Object.keys(registry.ERRORS).filter((code) => !Object.hasOwn(DESCRIPTIONS, code));
}

/** A Markdown table cell: a `|` would end it early. */
function cell(text) {
  return String(text).replaceAll('|', '\\|');
}

/**
 * The text of docs/errors.md for a registry module (the compiled
 * src/protocol/errors.js: ERRORS, EXTRA_ERROR_CODES, errorType,
 * isRetryableStatus). Codes are ordered by status, then as registered.
 * Throws when a registered code has no description.
 */
export function renderErrorsDoc(registry) {
  const missing = undescribedCodes(registry);
  if (missing.length > 0) {
    throw new Error(`scripts/errors-doc.js: describe ${missing.join(', ')} in DESCRIPTIONS`);
  }
  const extra = new Set(registry.EXTRA_ERROR_CODES);
  const codes = Object.keys(registry.ERRORS)
    .map((code, index) => ({ code, index, ...registry.ERRORS[code] }))
    .sort((a, b) => a.status - b.status || a.index - b.index);
  const rows = codes.map(({ code, status, title }) =>
    [
      status,
      `\`${code}\``,
      cell(title),
      cell(DESCRIPTIONS[code]),
      registry.isRetryableStatus(status) ? 'yes' : 'no',
      extra.has(code) ? 'Wagerlink' : 'interface',
      `\`${registry.errorType(code)}\``,
    ].join(' | '),
  );
  return [
    `<!-- Generated from src/protocol/errors.ts by \`${COMMAND}\`. Do not edit: change the registry or the script's descriptions, then regenerate. -->`,
    '',
    '# Error codes',
    '',
    'Every answer of a Wagerlink server other than 200 or 201 is',
    '`application/problem+json` built from one entry of this list',
    '([protocol.md](protocol.md) §3): its `status`, `title` and `type` are the',
    "entry's, and `code` is the code. The list is generated from the registry",
    'in `src/protocol/errors.ts` by `scripts/errors-doc.js`.',
    '',
    '- **resend**: "yes" where the retry rule (protocol.md §3.3) resends the',
    '  same body after this answer; every other answer is final.',
    '- **defined by**: "interface" for the codes of the interface (protocol.md',
    '  §3.2); "Wagerlink" for codes that Wagerlink\'s servers add: the back',
    '  office, routing and the HTTP layer.',
    '',
    '| status | code | title | when | resend | defined by | type |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
    '',
  ].join('\n');
}

/** The repository's docs/errors.md. */
export const ERRORS_DOC_URL = new URL('../docs/errors.md', import.meta.url);

async function main() {
  const registry = await import(new URL('../dist/src/protocol/errors.js', import.meta.url).href).catch((error) => {
    throw new Error(`cannot read the compiled registry; build first (npx tsc -p tsconfig.json): ${error.message}`);
  });
  writeFileSync(ERRORS_DOC_URL, renderErrorsDoc(registry));
  console.log(`wrote ${fileURLToPath(ERRORS_DOC_URL)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
