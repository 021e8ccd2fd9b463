/**
 * Proves what the reels page holds as data against the server's: its strips
 * and lines are src/game/reels.ts's (the browser recomputes a revealed
 * round's windows with them, so a drift would mark honest rounds ✗), its
 * windowOf draws the same window for every stop, and strings.json gives
 * every language every text English has, with the same placeholders.
 */
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LINES, STRIPS, windowOf } from '../../src/game/reels.js';

/** The project's web/ folder, from dist/test/provider/. */
const WEB = new URL('../../../web/', import.meta.url);

interface PageData {
  STRIPS: string[];
  LINES: number[][];
  windowOf: (stops: number[]) => string[][];
}

test("the page's strips and lines are the game's", async () => {
  const page = (await import(new URL('reels-api.js', WEB).href)) as PageData;
  assert.deepEqual(page.STRIPS, [...STRIPS]);
  assert.deepEqual(
    page.LINES,
    LINES.map((rows) => [...rows]),
  );
  for (let stop = 0; stop < STRIPS[0]!.length; stop++) {
    const stops = [stop, (stop * 7) % STRIPS[1]!.length, (stop * 13 + 5) % STRIPS[2]!.length];
    assert.deepEqual(page.windowOf(stops), windowOf(stops), `stops ${stops.join(',')}`);
  }
});

test('every language has every text of English, with the same placeholders', () => {
  const strings = JSON.parse(readFileSync(new URL('strings.json', WEB), 'utf8')) as Record<string, Record<string, string>>;
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
  const english = strings.en!;
  for (const [language, texts] of Object.entries(strings)) {
    assert.deepEqual(Object.keys(texts).sort(), Object.keys(english).sort(), `${language} has the same keys as en`);
    for (const [key, text] of Object.entries(texts)) assert.deepEqual(placeholders(text), placeholders(english[key]!), `${language}.${key}`);
  }
});

test('every text key the reels page and the shared code use is in strings.json', () => {
  const strings = JSON.parse(readFileSync(new URL('strings.json', WEB), 'utf8')) as Record<string, Record<string, string>>;
  const used = new Set<string>();
  for (const file of ['reels-page.js', 'page.js', 'reels.html']) {
    const source = readFileSync(new URL(file, WEB), 'utf8');
    for (const match of source.matchAll(/\bt\('(\w+)'/g)) used.add(match[1]!);
    for (const match of source.matchAll(/data-i18n(?:-label)?="(\w+)"/g)) used.add(match[1]!);
    for (const match of source.matchAll(/name: '(sym\w+)'/g)) used.add(match[1]!);
    for (const match of source.matchAll(/: '(p[A-Z]\w+)'/g)) used.add(match[1]!);
  }
  assert.ok(used.size > 40, `found the keys in use (${used.size})`);
  for (const key of used) assert.ok(key in strings.en!, `strings.json has ${key}`);
});
