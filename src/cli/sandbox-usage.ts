/**
 * The sandbox commands' usage texts, apart from sandbox-command.ts, which
 * main.ts imports only when a sandbox command runs: the usage of every
 * command is built from the command table at each start, and must not load
 * the sandbox's config and the provider's schemas with it.
 */
import { OPERATOR_PORT_DEFAULT, PROVIDER_PORT_DEFAULT, PROVIDER_SCHEMA_DEFAULT } from '../sandbox/sandbox-defaults.js';
import { SECRETS_FILE } from '../sandbox/sandbox-secrets.js';

export const SANDBOX_USAGE = `wagerlink sandbox — the whole interface on this machine: the operator wallet with a lobby and a
back office, and the provider with its games, on 127.0.0.1 (the same as npm start)

Usage:
  wagerlink sandbox [--data DIR] [--port P] [--provider-port P]
                    [--database postgres://... | --database-file FILE [--provider-schema NAME]] [--dispatch-horizon SECONDS]

Options:
  --data DIR            where the databases and the integration's secrets are kept (default ./data)
  --port P              the operator's port: lobby, back office, wallet API (default ${OPERATOR_PORT_DEFAULT})
  --provider-port P     the provider's port: its API and the games (default ${PROVIDER_PORT_DEFAULT})
  --database URL        both sides' database as a postgres:// URL (default SQLite in DIR: operator.db,
                        provider.db, which a start with --database neither reads nor changes); the
                        operator's tables go in the URL's schema (its search_path, else public), the
                        provider's in a schema of their own; a password in it is better in PGPASSWORD or
                        --database-file (an argument can be read by other users, and is warned about)
  --database-file FILE  a file holding --database's URL, on one line (warned about when group or others can read it)
  --provider-schema S   with --database: the provider's schema, made if missing (default ${PROVIDER_SCHEMA_DEFAULT})
  --dispatch-horizon S  how long the provider resends a round or payout before it parks it for staff, seconds
                        (default 259200, 72 h); with the back office's Casino down, a short one parks items soon
`;

export const SANDBOX_ENV_USAGE = `wagerlink sandbox env — prints the ids, addresses and secrets of a sandbox (npm start) as shell
variables, the ones the other commands read, so that they work against it:

  eval "$(npx wagerlink sandbox env)"

Usage:
  wagerlink sandbox env [--data DIR] [--provider-port P] [--database URL | --database-file FILE] [the sandbox's other options]

Options:
  --data DIR            the sandbox's data folder, whose ${SECRETS_FILE} it reads (default ./data)
  --provider-port P     the provider's port the sandbox was started with (default ${PROVIDER_PORT_DEFAULT})
  --database URL        the postgres:// URL the sandbox was started with (default SQLite in DIR)
  --database-file FILE  a file holding --database's URL, on one line

It takes every option of "wagerlink sandbox", so that the start's options can be given as they were;
those above change what it prints, the others are checked and change nothing. It prints
secrets (the integration's HMAC secret and the admin tokens): print it only into your own shell.
It reads the data folder and changes nothing; a folder without secrets is one the sandbox has
not started in yet (exit 1).
`;
