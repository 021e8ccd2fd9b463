/**
 * The game sessions' queries on PostgreSQL that several of the store's
 * operations share; provider-store.ts runs them in its transactions.
 */
import assert from 'node:assert/strict';
import type { GameSessionRow, Row } from '../provider-store.js';
import { sessionOf, type Querier } from './rows.js';

export async function sessionIn(db: Querier, pk: number): Promise<GameSessionRow> {
  const [row] = await db<Row[]>`SELECT * FROM game_sessions WHERE id = ${pk}`;
  assert.ok(row, `game session ${pk} exists`);
  return sessionOf(row);
}
