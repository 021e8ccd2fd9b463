/**
 * The outbox: rounds left pending reach the operator without waiting for
 * their player. Every limits.outboxIntervalMs a pass resends them
 * (GameService.resendLeftPending), one pass at a time: a pass still running
 * when the next is due lets that one go.
 *
 * It is background work, so the app does not start it when built: the
 * server (serve-provider.ts) starts it once it listens, and stops it on
 * shutdown before the store closes.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { GameService } from './game-service.js';

export interface OutboxOptions {
  games: Pick<GameService, 'resendLeftPending'>;
  /** Between two passes (ms): limits.outboxIntervalMs. */
  intervalMs: number;
  log: Pick<FastifyBaseLogger, 'info' | 'error'>;
}

export interface Outbox {
  /** Starts no further pass and resolves once the pass in progress, if any, has ended. */
  stop(): Promise<void>;
}

export function startOutbox(options: OutboxOptions): Outbox {
  const { games, log } = options;
  let pass: Promise<void> | undefined;
  const timer = setInterval(() => {
    pass ??= games
      .resendLeftPending()
      .then(
        (done) => {
          if (done.sessions > 0) log.info({ outbox: done }, `outbox: ${done.finished} rounds left pending were answered, ${done.stillPending} still pending`);
        },
        (error: unknown) => log.error({ err: error }, 'outbox pass failed; the next pass tries again'),
      )
      .finally(() => {
        pass = undefined;
      });
  }, options.intervalMs);
  // The server's sockets keep the process alive, not this timer.
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await pass;
    },
  };
}
