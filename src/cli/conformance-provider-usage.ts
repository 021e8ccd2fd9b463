/**
 * `wagerlink conformance provider`'s usage text, apart from
 * conformance-provider.ts, which main.ts imports only when the command
 * runs: its reporters load the report's schema, which no other command's
 * usage needs.
 */
import { DEFAULT_CURRENCIES, PROVIDER_AREAS } from '../conformance/provider/model.js';

export const CONFORMANCE_PROVIDER_USAGE = `wagerlink conformance provider — checks a provider endpoint against docs/protocol.md

Usage:
  wagerlink conformance provider --endpoint URL --secret-file FILE --operator-id ID --wallet-id ID --game SLUG
      [--currency CODE[,CODE]]... [--next-secret-file FILE] [--outside-whitelist] [--report FILE]... [--only AREA|CASE]... [--bail]

Options:
  --endpoint URL        the provider endpoint's base URL: its /generate-launch-url and /game-bets are checked
  --secret-file FILE    a file holding the operator's secret at the provider, which signs every request
                        (docs/protocol.md §2.2); or WAGERLINK_CONFORMANCE_SECRET, or --secret SECRET
  --operator-id ID      the operator's id at the provider
  --wallet-id ID        a wallet id the provider issued to that operator
  --game SLUG           a game the provider offers the operator
  --currency CODE       currencies the provider offers the operator for the game (default ${DEFAULT_CURRENCIES.join(', ')});
                        may be repeated or comma-separated; the ladder cases check up to three
  --next-secret-file FILE  a file holding the next secret of a rotation, if the provider holds one: the rotation
                        cases need it; or WAGERLINK_CONFORMANCE_NEXT_SECRET, or --next-secret SECRET
  --outside-whitelist   this machine's address is NOT whitelisted for the operator: check the whitelist's refusal
                        (403 IP_NOT_ALLOWED) and skip the other /generate-launch-url cases
  --report FILE         also write a report: FILE.json, FILE.xml (JUnit) or FILE.html; may be repeated
  --only AREA|CASE      run only these areas or case ids; may be repeated or comma-separated
  --bail                stop at the first case that fails

The kit calls from this machine's address, which the provider must whitelist for the operator
(docs/protocol.md §2.5); a second run from an address it does not admit, with --outside-whitelist,
checks the refusal. Launch URLs the provider answers are opened with a GET.

Each secret comes from its file, its option or its variable, in that order. An option's value can be read by
other users of the machine (ps, /proc) and stays in shell history: it works, with a warning on stderr. A file
holds the secret on one line; one readable by group or others is warned about too (chmod 600 it).

Areas: ${PROVIDER_AREAS.join(', ')}.

Exit codes: 0 every case judged passed, 1 a case failed, or the check before any case did (/game-bets did not
answer the game's ladders; the reports are written), 2 usage error or an endpoint that does not answer (nothing judged).
`;
