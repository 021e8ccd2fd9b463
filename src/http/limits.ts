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
