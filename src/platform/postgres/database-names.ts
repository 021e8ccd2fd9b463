/**
 * What a database URL and a schema name must look like, with no driver
 * loaded: configs check them when they are read (through
 * src/stores/settings.ts), and open-database.ts before it connects.
 */

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/**
 * A schema that Wagerlink creates and names in search_path: lower-case
 * letters, digits and _ (what PostgreSQL keeps of an unquoted name), so that
 * the name means the same quoted or not and needs no escaping in a URL.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Why `schema` cannot name a schema of ours, or undefined when it can. */
export function schemaNameProblem(schema: string): string | undefined {
  return SCHEMA_NAME.test(schema) ? undefined : `"${schema}" must be 1 to 63 lower-case letters, digits or _, not starting with a digit`;
}
