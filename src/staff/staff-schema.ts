/**
 * The tables of staff accounts, their tokens and the audit log, one schema
 * on both servers and both backends (each store's migrations apply it as a
 * version of their own). Text only: the stores run it.
 *
 * - staff_accounts: a name (never reused, so that the audit log names one
 *   person), a role, the provider's scope (`operators`: a JSON array of
 *   operator ids, or NULL for all; always NULL on the operator's side), and
 *   when it was revoked.
 * - staff_tokens: each token's id, its account, the SHA-256 of the token
 *   (never the token), its expiry and revocation.
 * - staff_audit: one row per state-changing back-office call. Append-only,
 *   and the database enforces it: triggers refuse every UPDATE and DELETE
 *   (and, on PostgreSQL, TRUNCATE), whoever asks.
 */

const ROLES_CHECK = "role IN ('read-only', 'support', 'payments', 'admin')";

export const STAFF_SCHEMA_SQLITE = `
CREATE TABLE staff_accounts (
  name        TEXT PRIMARY KEY,
  role        TEXT NOT NULL CHECK (${ROLES_CHECK}),
  operators   TEXT,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
) WITHOUT ROWID;
CREATE TABLE staff_tokens (
  token_id    TEXT PRIMARY KEY,
  name        TEXT NOT NULL REFERENCES staff_accounts (name),
  token_hash  TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  revoked_at  INTEGER
) WITHOUT ROWID;
CREATE TABLE staff_audit (
  id           INTEGER PRIMARY KEY,
  at           INTEGER NOT NULL,
  actor        TEXT NOT NULL,
  token_id     TEXT,
  method       TEXT NOT NULL,
  route        TEXT NOT NULL,
  target       TEXT,
  amount       TEXT,
  currency     TEXT,
  address      TEXT,
  operator_id  TEXT,
  status       INTEGER NOT NULL,
  code         TEXT
);
CREATE TRIGGER staff_audit_no_update BEFORE UPDATE ON staff_audit BEGIN SELECT RAISE(ABORT, 'staff_audit is append-only'); END;
CREATE TRIGGER staff_audit_no_delete BEFORE DELETE ON staff_audit BEGIN SELECT RAISE(ABORT, 'staff_audit is append-only'); END;
`;

export const STAFF_SCHEMA_POSTGRES = `
CREATE TABLE staff_accounts (
  name        text PRIMARY KEY,
  role        text NOT NULL CHECK (${ROLES_CHECK}),
  operators   text,
  created_at  bigint NOT NULL,
  revoked_at  bigint
);
CREATE TABLE staff_tokens (
  token_id    text PRIMARY KEY,
  name        text NOT NULL REFERENCES staff_accounts (name),
  token_hash  text NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  revoked_at  bigint
);
CREATE TABLE staff_audit (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at           bigint NOT NULL,
  actor        text NOT NULL,
  token_id     text,
  method       text NOT NULL,
  route        text NOT NULL,
  target       text,
  amount       text,
  currency     text,
  address      text,
  operator_id  text,
  status       integer NOT NULL,
  code         text
);
CREATE FUNCTION staff_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'staff_audit is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER staff_audit_no_change BEFORE UPDATE OR DELETE ON staff_audit
  FOR EACH ROW EXECUTE FUNCTION staff_audit_append_only();
CREATE TRIGGER staff_audit_no_truncate BEFORE TRUNCATE ON staff_audit
  FOR EACH STATEMENT EXECUTE FUNCTION staff_audit_append_only();
`;
