/**
 * TEST CODE — PostgreSQL for the Pulumi CLI's postgres:// DIY backend (docs/backends.md): the server that
 * scripts/postgres-test-server.sh starts (the one place a test server is started and stopped), a database of its
 * own per suite, and SQL through psql. The connection goes to psql in PG* environment variables, never on its
 * command line; the URLs carry no password (the script's `passfile=`, or whatever the caller's URL carries).
 */
import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as path from "node:path";

const REPO = path.resolve(__dirname, "..", "..");
const SCRIPT = path.join(REPO, "scripts", "postgres-test-server.sh");

/** The variable .ci/run sets to the URL of the server it started; without it a suite starts its own. */
export const POSTGRES_URL_VARIABLE = "BACKUP_PORTAL_TEST_POSTGRES_URL";

/** The script's one line on failure (what to install, or what the server logged) as the error. */
function script(args: string[]): string {
  const r = spawnSync("bash", [SCRIPT, ...args], { encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) {
    throw new Error(r.stderr.trim().split("\n").pop() || `scripts/postgres-test-server.sh ${args[0]} failed (${r.status ?? r.signal})`);
  }
  return r.stdout;
}

let psqlPath: string | undefined;
function psql(): string {
  psqlPath ??= path.join(script(["bin"]).trim(), "psql");
  return psqlPath;
}

/** libpq's environment for a postgres:// URL: psql connects with it and nothing on its command line. */
export function pgEnv(url: string): Record<string, string> {
  const u = new URL(url);
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new Error(`not a postgres:// URL: ${u.protocol}`);
  const env: Record<string, string> = { PGCONNECT_TIMEOUT: "10" };
  if (u.hostname) env.PGHOST = u.hostname;
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  const db = decodeURIComponent(u.pathname.replace(/^\//, ""));
  if (db) env.PGDATABASE = db;
  const passfile = u.searchParams.get("passfile");
  if (passfile) env.PGPASSFILE = passfile;
  const sslmode = u.searchParams.get("sslmode");
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

/** The URL with its database (the path) replaced. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** One SQL statement on the URL's database; its rows, each a list of fields (text; NULL as ""). */
export function query(url: string, sql: string): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    execFile(
      psql(),
      ["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
      { env: { PATH: process.env.PATH ?? "", ...pgEnv(url) }, timeout: 60_000, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`psql: ${stderr.trim() || err.message}`));
        // psql -A -t: a line per row (none for a statement without rows), fields split by tabs.
        resolve(
          stdout === ""
            ? []
            : stdout
                .replace(/\n$/, "")
                .split("\n")
                .map((l) => l.split("\t")),
        );
      },
    );
  });
}

export interface PostgresServer {
  /** postgres://pulumi@127.0.0.1:<port>/postgres?sslmode=disable&passfile=<its pgpass file> */
  url: string;
  /** Stops the server and removes its folder; again is a no-op. */
  close(): void;
}

/**
 * Starts a server (scripts/postgres-test-server.sh start). A run that ends without close() (a crash, mocha's
 * --exit) or is stopped by a signal still stops it and removes its folder.
 */
export function startPostgres(): PostgresServer {
  const out = script(["start"]);
  const dir = /^dir=(.*)$/m.exec(out)?.[1];
  const url = /^url=(.*)$/m.exec(out)?.[1];
  if (!dir || !url) throw new Error(`scripts/postgres-test-server.sh start printed no dir= and url= lines: ${out.trim()}`);
  let stopped = false;
  const close = () => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", close);
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.removeListener(signal, onSignal);
    script(["stop", dir]);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    close();
    process.kill(process.pid, signal);
  };
  process.on("exit", close);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, onSignal);
  return { url, close };
}

export interface TestDatabase {
  /** The backend URL for the CLI: the server's, with this database. */
  url: string;
  name: string;
  query(sql: string): Promise<string[][]>;
}

/**
 * The hooks of a suite with a database of its own: on the server of BACKUP_PORTAL_TEST_POSTGRES_URL (.ci/run's),
 * else on one the suite starts and stops. Created in `before`, dropped in `after` (with the suite's server, if
 * it started one). Where PostgreSQL is not installed, `before` fails with one line saying what to install.
 */
export function postgresSuite(): { readonly db: TestDatabase } {
  let server: PostgresServer | undefined;
  let db: TestDatabase | undefined;
  let base: string | undefined;
  before(async function () {
    this.timeout(120_000);
    base = process.env[POSTGRES_URL_VARIABLE] || (server = startPostgres()).url;
    const name = `test_${randomBytes(6).toString("hex")}`;
    await query(base, `CREATE DATABASE ${name}`);
    const url = withDatabase(base, name);
    db = { url, name, query: (sql) => query(url, sql) };
  });
  after(async function () {
    this.timeout(120_000);
    try {
      if (db && base) await query(base, `DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`);
    } finally {
      server?.close();
    }
  });
  return {
    get db() {
      return db!;
    },
  };
}
