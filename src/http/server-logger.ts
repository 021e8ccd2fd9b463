/**
 * The servers' logger: pino, JSON lines on stdout, written without blocking.
 *
 * Every request answered is a line (json-api.ts). Written synchronously,
 * each line would be a write(2) on the thread that answers requests.
 * Written asynchronously (sonic-boom), a line goes out at once when no write
 * is in flight, and the lines logged while one is go out together in the
 * next: under load many lines share one system call, when idle none waits.
 * pino writes what is still buffered when the process exits, on a signal or
 * an uncaught error as on a normal stop; a SIGKILL or a power cut may lose
 * the last lines. They are logs: the ledger and the round log are the record.
 */
import { pino, type Logger } from 'pino';

export function serverLogger(level: string, base: Record<string, unknown>): Logger {
  return pino({ level, base }, pino.destination({ dest: 1, sync: false }));
}
