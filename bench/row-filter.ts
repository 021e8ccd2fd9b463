/**
 * `npm run bench -- --rows ...`: which rows to measure. Row names contain
 * commas ("wallet, single bet"), so a filter that is a row's whole name
 * selects that row alone; otherwise it is a comma-separated list of words,
 * and a row is measured when its name contains any of them.
 */
export function rowFilter(filter: string | undefined, rowNames: readonly string[]): (name: string) => boolean {
  if (filter === undefined) return () => true;
  const whole = filter.trim();
  if (rowNames.includes(whole)) return (name) => name === whole;
  const words = whole
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word.length > 0);
  return (name) => words.some((word) => name.includes(word));
}
