/**
 * Runs measured again when the host took the CPU. On a shared virtual
 * machine the host gives this machine's cores to other tenants now and then
 * (`steal` in /proc/stat): 0% in one 10 s run, 10% or 20% in the next. A
 * run with much of it measured the neighbours as much as the server, and in
 * a ratio of two rows it moves the figure whichever side it falls on. So a
 * run over STEAL_SET_ASIDE_SHARE is set aside and measured again, up to
 * STEAL_RETRIES times; then the last attempt is kept whatever its steal. It
 * is the same rule for the ceiling, the wallet rows and pgbench, and the
 * results keep every run set aside.
 */
import type { RunResult } from './postgres-rows.js';

/** A run during which the host took more than this share of both cores is measured again. */
export const STEAL_SET_ASIDE_SHARE = 0.05;
/** Attempts after the first, per run; a smoke run makes none. */
export const STEAL_RETRIES = 2;

export interface StealRule {
  retries: number;
  log: (message: string) => void;
}

/**
 * One run of a row: `attempt` measures it (with fresh requests each time,
 * where the server keeps what it was sent). Attempts set aside are added to
 * `setAside`.
 */
export async function measureRun(name: string, attempt: () => Promise<RunResult>, rule: StealRule, setAside: RunResult[]): Promise<RunResult> {
  for (let tries = 0; ; tries++) {
    const result = await attempt();
    // Unmeasured steal (no /proc) is NaN, and NaN > share is false: kept.
    if (!(result.machineStealShare > STEAL_SET_ASIDE_SHARE) || tries >= rule.retries) return result;
    setAside.push(result);
    rule.log(`${name}: the host took ${stealText(result.machineStealShare)} of the CPU during that run (steal); it is set aside and measured again`);
  }
}

/** A share of steal to a tenth of a percent: 5.1% must not read as the rule's 5%. */
export function stealText(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
