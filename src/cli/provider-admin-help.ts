/**
 * The help of the provider's back-office commands (provider-admin.ts), and
 * the variables they read: apart from the commands, so that the usage texts
 * load no HTTP client.
 */
export const PROVIDER_ADMIN_VARIABLES = {
  WAGERLINK_PROVIDER_ADMIN_TOKEN:
    "the provider's admin token, for provider payouts and outbox (or --admin-token-file, or --admin-token); they reach the provider at WAGERLINK_PROVIDER_URL",
} as const;

const CONNECTION = `  --provider URL       the provider's base URL (or WAGERLINK_PROVIDER_URL)
  --admin-token-file FILE  a file holding its admin token (or WAGERLINK_PROVIDER_ADMIN_TOKEN; or
                       --admin-token T, which other users can read in ps and which is warned about)`;

export const ADMIN_HELP = {
  payouts: `wagerlink provider payouts — tournament prizes, paid through the provider's outbox

Usage:
  wagerlink provider payouts create --provider URL --admin-token T --operator ID --player ID --currency C --amount A --campaign UUID [--payout UUID]
  wagerlink provider payouts import FILE.csv --provider URL --admin-token T --operator ID --campaign UUID

Run "wagerlink provider payouts create --help" or "... import --help" for more.
`,
  'payouts create': `wagerlink provider payouts create — pay one player a prize

Usage:
  wagerlink provider payouts create --provider URL --admin-token T --operator ID --player ID --currency C --amount A --campaign UUID [--payout UUID]

${CONNECTION}
  --operator ID        the operator the player plays at
  --player ID          the operator's player id; the player must have played a real game here at that operator
  --currency C         the currency of the player's games (e.g. EUR)
  --amount A           decimal text, e.g. 50.00, within the currency's decimals
  --campaign UUID      the tournament's campaign id
  --payout UUID        the payout's id; by default derived from operator, campaign and player, so the same prize is paid once

Prints the payout as JSON (status pending until the operator answers). Exit 0 created or already there
with the same content, 1 refused (one line on stderr: wagerlink: CODE: detail), 2 usage.
`,
  'payouts import': `wagerlink provider payouts import — pay a leaderboard's prizes from a CSV file

Usage:
  wagerlink provider payouts import FILE.csv --provider URL --admin-token T --operator ID --campaign UUID

${CONNECTION}
  --operator ID        the operator the players play at
  --campaign UUID      the tournament's campaign id

FILE.csv (RFC 4180, UTF-8) has a header row and one row per player:
  playerId,currency,amount[,payoutId]
  alice,EUR,500.00
  "bob, jr",EUR,250.00

The whole file is checked first; every bad line is reported with its number and nothing is sent.
Then each row is sent in turn, with progress on stderr, and a summary is printed as JSON: created,
already there, conflicts, refused, failed. Importing the same file again pays nobody twice.
Exit 0 when every row was created or already there, 1 otherwise, 2 usage.
`,
  outbox: `wagerlink provider outbox — the requests waiting for, or given, an operator's final answer

Usage:
  wagerlink provider outbox list [--status S] [--operator ID] [--limit N] --provider URL --admin-token T
  wagerlink provider outbox retry ID --provider URL --admin-token T
  wagerlink provider outbox resolve ID --reference REF --provider URL --admin-token T

Run "wagerlink provider outbox list --help", "... retry --help" or "... resolve --help" for more.
`,
  'outbox list': `wagerlink provider outbox list — the outbox's items of one status

Usage:
  wagerlink provider outbox list [--status S] [--operator ID] [--limit N] --provider URL --admin-token T

${CONNECTION}
  --status S           pending (default), parked, refused, sent, skipped or resolved
  --operator ID        only this operator's items
  --limit N            at most N items (default 50, at most 1000)

Prints the items as JSON: each with its operator, kind, path, attempts, whether a node holds it in
flight, and the last answer. Exit 0 listed, 1 refused (one line on stderr: wagerlink: CODE: detail), 2 usage.
`,
  'outbox retry': `wagerlink provider outbox retry — send an item again now

Usage:
  wagerlink provider outbox retry ID --provider URL --admin-token T

${CONNECTION}

ID is the item's id as outbox list shows it. A parked item, or a pending one that no node holds in
flight, is made due now; its back-off starts again. Safe to repeat: the operator books each request
once. Exit 0 done, 1 refused (one line on stderr, wagerlink: CODE: detail; e.g. the item is in flight or already final), 2 usage.
`,
  'outbox resolve': `wagerlink provider outbox resolve — settle an item by hand

Usage:
  wagerlink provider outbox resolve ID --reference REF --provider URL --admin-token T

${CONNECTION}
  --reference REF      the operator's reference of what it booked (kept with the item)

For an item the operator has booked, or settled with the player, outside the outbox: the item is
resolved and is never sent again, and the round or payout it carries is finished as settled or paid.
Exit 0 done, 1 refused (one line on stderr: wagerlink: CODE: detail), 2 usage.
`,
} as const;
