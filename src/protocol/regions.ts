/** Country and language checks, from maintained data rather than hand lists. */
// The library's codes and checks without its country names: its main entry
// parses the names in all of its 78 languages (724 KB of JSON) at every start,
// about 40 ms of CPU in each process, and only the codes are checked here.
import countries from 'i18n-iso-countries/index.js';

/** An assigned ISO 3166-1 alpha-2 code in upper case (docs/protocol.md §8). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code);
}

/** A well-formed BCP 47 language tag, as Intl (ICU) parses it. */
export function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}
