/**
 * The limits every Wagerlink HTTP server applies by default (docs/protocol.md
 * §9), in a module of their own so that the configs, the apps and the
 * servers all read the same numbers without importing one another. Each is
 * configurable: the operator from its environment, the provider from its
 * config file's `limits`.
 */

/**
 * docs/protocol.md §1, §9: request bodies over this are refused with 413
 * (bytes; 256 KiB). It holds the largest request the schemas describe (100
 * transactions with a 16,384-character `regulatory`) with room to spare,
 * and bounds the bytes a caller can make a server read and check a
 * signature over before any of them is judged.
 */
export const BODY_BYTES_MAX = 256 * 1024;

/**
 * docs/protocol.md §9: a request's headers and body must arrive within this (ms),
 * else 408 and the connection is closed. A caller's largest body (256 KiB)
 * takes well under a second on any working link, while every socket that
 * stalls, authenticated or not, holds a file descriptor: 10 s bounds how
 * long it can.
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * docs/protocol.md §9: a graceful stop has this long (ms) to finish answering,
 * then open connections are closed. Requests arrive whole within the request
 * time-out (10 s) and a handler's calls are bounded by their own deadlines
 * (a wallet call by the database's, 4 s by default), so a stop that needs
 * longer is waiting for a client, not for work; and supervisors give a
 * process little more (Kubernetes 30 s before SIGKILL, systemd 90 s).
 */
export const SHUTDOWN_TIMEOUT_MS = 10_000;

/**
 * The player-facing APIs (the provider's game pages' /game/:slug/api/*, the
 * sandbox lobby's /lobby/api/*) refuse bodies over this with 413 (bytes;
 * 8 KiB). Their largest body is a play: a launch token of at most 4,096
 * characters (the provider's TOKEN_LENGTH_MAX, which a test holds this to)
 * and a few short members, about 4.3 KB; a lobby's bodies are under 1 KB.
 * Callers nobody vouches for are held to what a page sends, not to the
 * interface's 256 KiB.
 */
export const PLAYER_BODY_BYTES_MAX = 8 * 1024;

/**
 * The window (s) over which the player-facing APIs count each caller's
 * calls; a caller over its limit is told to come back when its window ends
 * (429 with Retry-After). Ten seconds lets a page's bursts (a reload: open,
 * state, a play) pass, and keeps the wait of one who hit a limit short.
 */
export const PLAYER_RATE_WINDOW_S = 10;

/**
 * Calls of the player-facing APIs from one address (an IPv6 /64) per window
 * (PLAYER_RATE_WINDOW_S): 2,000, 200 a second. A person plays a round a
 * second at most and the page polls once a second while one is pending, so
 * this admits a hundred players at full speed behind one address (a
 * household, an office, a carrier's NAT), and the tests that play hundreds
 * of rounds as fast as they can; one address cannot flood a server with
 * more. The bench's end-to-end rows, 64 launches from one address at
 * thousands of rounds a second, set their own (bench/end-to-end-row.ts).
 */
export const PLAYER_CALLS_PER_ADDRESS_MAX = 2_000;

/**
 * Round-playing calls (a play, a free spin) of one launch per window: 500,
 * 50 a second. A person takes a second or more per round; tests play up to
 * 200 rounds of one launch back to back. A launch's rounds run one at a
 * time anyway: this bounds what one leaked token can make an operator book.
 */
export const ROUND_CALLS_PER_LAUNCH_MAX = 500;

/**
 * The Retry-After (s) of a 503 for a server's database failing (down, full,
 * stuck, out of connections, a statement timed out, a fail-over under way),
 * on both sides. A second: a provider's call or a player's click comes back
 * soon after a restart or a fail-over, without resending at once into the
 * outage; each call answers within its deadline, so the waits do not pile up.
 */
export const STORAGE_RETRY_AFTER_S = 1;
