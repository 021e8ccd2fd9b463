/**
 * `wagerlink provider verify`: whether the provider's own records agree
 * with each other (docs/provider.md, Verify), read from its database as
 * `provider staff` opens it, from the config, with the server stopped or
 * running. The store reads one snapshot and src/rounds/books.ts judges it;
 * this only tells the verdict: a line per finding and a total, or the
 * verdict as JSON (--json). Exit 0 when everything agrees, 1 with findings,
 * 2 when the records could not be read (usage, config, database).
 */
import { existsSync } from 'node:fs';
import { FINDING_KINDS, type Finding, type RoundBooksVerdict } from '../rounds/books.js';
import { readProviderConfig } from '../provider/provider-config.js';
import { openProviderStore, providerBackendOf } from '../provider/store/open-provider-store.js';
import type { Values } from './command-table.js';

/** The records could not be read, so nothing was judged: exit 2, as a usage error. */
class VerifyNotRead extends Error {
  override name = 'VerifyNotRead';
}

async function verdictOf(configFile: string): Promise<RoundBooksVerdict> {
  try {
    const config = readProviderConfig(configFile);
    // Opening a missing file would make an empty database, and verify it.
    if (providerBackendOf(config.database) === 'sqlite' && config.database !== ':memory:' && !existsSync(config.database)) {
      throw new Error(`database file ${config.database} does not exist`);
    }
    const store = await openProviderStore(config.database, {
      currencies: config.currencies,
      schema: config.databaseSchema,
      postgres: config.postgres,
    });
    try {
      return await store.verify();
    } finally {
      await store.close();
    }
  } catch (error) {
    throw new VerifyNotRead(`could not read the provider's records: ${(error as Error).message}`, { cause: error });
  }
}

const line = (finding: Finding<string>, label: string) => `${label} ${finding.ids.join(' ')}: ${finding.sentence}`;

/** The verdict in words: each finding listed, the count of those not listed, the notes, and the total. */
export function verdictText(verdict: RoundBooksVerdict): string {
  const lines: string[] = [];
  for (const kind of FINDING_KINDS) {
    const listed = verdict.findings.filter((finding) => finding.kind === kind);
    for (const finding of listed) lines.push(line(finding, finding.kind));
    const unlisted = (verdict.totals[kind] ?? 0) - listed.length;
    if (unlisted > 0) lines.push(`${kind}: ... and ${unlisted} more`);
  }
  for (const note of verdict.notes) lines.push(line(note, `note ${note.kind}`));
  for (const [kind, total] of Object.entries(verdict.noteTotals)) {
    const unlisted = total - verdict.notes.filter((note) => note.kind === kind).length;
    if (unlisted > 0) lines.push(`note ${kind}: ... and ${unlisted} more`);
  }
  const { counted } = verdict;
  const read =
    `${counted.rounds} rounds (${counted.realRounds} real), ${counted.items} outbox items, ${counted.payouts} payouts, ` +
    `${counted.pools} jackpot pools, ${counted.campaignUses} players' campaign uses`;
  const totals = Object.entries(verdict.totals).map(([kind, total]) => `${kind} ${total}`);
  const findings = Object.values(verdict.totals).reduce((sum, total) => sum + total, 0);
  lines.push(verdict.ok ? `verified: ${read} — all agree` : `verified: ${read} — ${findings} findings (${totals.join(', ')})`);
  return `${lines.join('\n')}\n`;
}

export async function providerVerify(values: Values): Promise<void> {
  const verdict = await verdictOf(values.config!);
  process.stdout.write(values.json ? `${JSON.stringify(verdict)}\n` : verdictText(verdict));
  process.exitCode = verdict.ok ? 0 : 1;
}
