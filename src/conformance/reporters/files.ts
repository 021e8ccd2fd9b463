/**
 * The report files of `--report FILE`, chosen by the file's extension:
 * `.json` (the RunReport of report.ts as it is), `.xml` (JUnit, for CI
 * servers) and `.html` (one self-contained page to send to the other side
 * of an integration).
 */
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { RunReport } from '../report.js';
import { htmlReport } from './html.js';
import { junitReport } from './junit.js';

export type ReportFormat = 'json' | 'junit' | 'html';

const BY_EXTENSION: Readonly<Record<string, ReportFormat>> = { '.json': 'json', '.xml': 'junit', '.html': 'html', '.htm': 'html' };

/** The format a report path asks for, or undefined if its extension names none. */
export function reportFormat(path: string): ReportFormat | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

export function renderReport(report: RunReport, format: ReportFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'junit':
      return junitReport(report);
    case 'html':
      return htmlReport(report);
  }
}

export async function writeReport(report: RunReport, path: string): Promise<void> {
  const format = reportFormat(path);
  if (format === undefined) throw new Error(`${path}: a report file ends in .json, .xml or .html`);
  await writeFile(path, renderReport(report, format), 'utf8');
}

/** Writes the report to every path asked for (`--report`), naming each on `out` once written. */
export async function writeReports(report: RunReport, paths: readonly string[], out: NodeJS.WritableStream): Promise<void> {
  for (const path of paths) {
    await writeReport(report, path);
    out.write(`report: ${path}\n`);
  }
}
