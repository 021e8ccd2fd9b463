/**
 * The layer table of docs/architecture.md ("The layers"), read as rules, so
 * that test/architecture/imports.test.ts checks the code against the doc
 * itself and the two cannot drift apart.
 *
 * Each row reads `| scope | what | imports from src/ |`:
 * - the scope is a folder (`src/protocol`, `web/`) or a file
 *   (`src/index.ts`); a file is judged by the most specific row that holds
 *   it;
 * - the third column lists, backticked, the folders of src/ the scope may
 *   import (`protocol` is src/protocol, with everything under it).
 *   Backticked file names (`*.ts`) in parentheses after a folder narrow it to
 *   those files of it; any other text in parentheses only says why, and the
 *   whole folder is allowed (`platform` (`serve`'s owner-only umask) is the
 *   folder). "nothing", "nothing of ours" and "—" allow no folder of src/;
 *   an empty column states no rule (test/ may import every layer).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface Allowed {
  /** A folder of src/, from the root: `src/protocol`. */
  folder: string;
  /** The only files of that folder allowed, from the root; empty when the whole folder is. */
  files: string[];
}

export interface LayerRow {
  /** From the root, without a trailing slash: `src/protocol`, `src/index.ts`, `web`. */
  scope: string;
  /** What may be imported from src/; `undefined` when the row states no rule. */
  allowed: Allowed[] | undefined;
  /** The row as written, for messages. */
  line: string;
}

const NOTHING = new Set(['nothing', 'nothing of ours', '—']);

/** The rows of the table under `## The layers`, or an error naming what could not be read. */
export function parseLayerTable(markdown: string): LayerRow[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === '## The layers');
  if (start < 0) throw new Error('no "## The layers" section');
  const rows: LayerRow[] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells.length !== 3) throw new Error(`a row of the layer table has ${cells.length} columns, not 3: ${line}`);
    const [scopeCell, , importsCell] = cells as [string, string, string];
    if (scopeCell === 'folder' || /^-+$/.test(scopeCell)) continue; // the header and its rule
    const scope = /^`([^`]+)`$/.exec(scopeCell)?.[1]?.replace(/\/$/, '');
    if (scope === undefined) throw new Error(`the first column names no folder or file in backticks: ${line}`);
    rows.push({ scope, allowed: parseImports(importsCell, line), line });
  }
  return rows;
}

/** The third column: backticked folders at the top level, narrowed by backticked `.ts` names in the parentheses after them. */
function parseImports(cell: string, line: string): Allowed[] | undefined {
  if (cell === '') return undefined;
  if (NOTHING.has(cell)) return [];
  const allowed: Allowed[] = [];
  let depth = 0;
  for (const token of cell.matchAll(/`([^`]+)`|\(|\)/g)) {
    if (token[0] === '(') depth += 1;
    else if (token[0] === ')') depth -= 1;
    else if (depth === 0) allowed.push({ folder: `src/${token[1]!}`, files: [] });
    else if (token[1]!.endsWith('.ts') && allowed.length > 0) {
      const last = allowed[allowed.length - 1]!;
      last.files.push(`${last.folder}/${token[1]!}`);
    }
  }
  if (depth !== 0 || allowed.length === 0) throw new Error(`the third column lists no folder in backticks, nor "nothing": ${line}`);
  return allowed;
}

/** The most specific row holding `path` (a path from the root), if any. */
export function rowOf(rows: readonly LayerRow[], path: string): LayerRow | undefined {
  let best: LayerRow | undefined;
  for (const row of rows) {
    if (path !== row.scope && !path.startsWith(`${row.scope}/`)) continue;
    if (best === undefined || row.scope.length > best.scope.length) best = row;
  }
  return best;
}

/**
 * The layer a path belongs to: the folder right under src/ (`src/platform`
 * for `src/platform/sqlite/migrate.ts`), a file right under src/ itself, or
 * the top folder (`web`). Imports within one layer are always allowed: the
 * rows of src/platform say what the platform may take from other layers,
 * not how its parts share code.
 */
function layerOf(path: string): string {
  const parts = path.split('/');
  return parts[0] === 'src' ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Whether `row` allows its files to import `to` (a path from the root). */
export function allows(row: LayerRow, from: string, to: string): boolean {
  if (row.allowed === undefined) return true;
  if (!to.startsWith('src/')) return true; // the table speaks of src/ only (package.json, web/ read as files)
  if (layerOf(from) === layerOf(to)) return true;
  return row.allowed.some((allowed) => to.startsWith(`${allowed.folder}/`) && (allowed.files.length === 0 || allowed.files.includes(to)));
}

/** What in the rows does not exist under `root`: a scope, an allowed folder or an allowed file. */
export function missingNames(rows: readonly LayerRow[], root: string): string[] {
  const missing: string[] = [];
  for (const row of rows) {
    if (!existsSync(join(root, row.scope))) missing.push(`scope ${row.scope}`);
    for (const allowed of row.allowed ?? []) {
      const folder = join(root, allowed.folder);
      if (!existsSync(folder) || !statSync(folder).isDirectory()) missing.push(`folder ${allowed.folder} (row ${row.scope})`);
      for (const file of allowed.files) if (!existsSync(join(root, file))) missing.push(`file ${file} (row ${row.scope})`);
    }
  }
  return missing;
}
