// The Pulumi CLI's PostgreSQL DIY backend (postgres://, docs/backends.md) for the benchmark: a server of its own,
// started and stopped by scripts/postgres-test-server.sh as the tests' is (test/support/postgres.ts), a database
// for the run, and how many bytes the server wrote for the CLI. Measured by the server, not from /proc: the bytes
// of the write-ahead log (pg_current_wal_lsn's advance, every change's durable write) plus the data pages written
// to the table's files (pg_stat_bgwriter's buffers written by checkpoints, the background writer and backends,
// times the block size), after a CHECKPOINT so that the pages the CLI dirtied so far are counted.
import { query, startPostgres, withDatabase } from "../test/support/postgres";

export interface PostgresBackend {
  /** PULUMI_BACKEND_URL for the CLI (no password in it: it names the server's pgpass file). */
  url: string;
  /** Bytes the server wrote since start: write-ahead log plus data pages. Runs a CHECKPOINT first. */
  bytesWritten(): Promise<number>;
  /** The same, in its two parts. */
  written(): Promise<{ wal: number; pages: number }>;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

const PAGES_WRITTEN = "buffers_checkpoint + buffers_clean + buffers_backend";

/** Starts a server with an empty database `bench`; what it wrote is counted from here. */
export async function startPostgresBackend(): Promise<PostgresBackend> {
  const server = startPostgres();
  try {
    await query(server.url, "CREATE DATABASE bench");
    const url = withDatabase(server.url, "bench");
    // The server's own start-up writes are not the CLI's: flushed and left out of the baseline.
    await query(url, "CHECKPOINT");
    const [[lsn, pages0, blockSize]] = await query(
      url,
      `SELECT pg_current_wal_lsn(), ${PAGES_WRITTEN}, current_setting('block_size') FROM pg_stat_bgwriter`,
    );
    const written = async () => {
      await query(url, "CHECKPOINT");
      const [[wal, pages]] = await query(
        url,
        `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${lsn}')::bigint, ${PAGES_WRITTEN} - ${Number(pages0)} FROM pg_stat_bgwriter`,
      );
      return { wal: Number(wal), pages: Number(pages) * Number(blockSize) };
    };
    return {
      url,
      written,
      bytesWritten: async () => {
        const w = await written();
        return w.wal + w.pages;
      },
      close: async () => server.close(),
    };
  } catch (e) {
    server.close();
    throw e;
  }
}
