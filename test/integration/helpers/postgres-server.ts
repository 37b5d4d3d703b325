import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from '../../helpers/free-port';

const run = promisify(execFile);

/** Where the PostgreSQL 15 binaries live; PG_BIN overrides it. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A throw-away PostgreSQL server for one test file. */
export interface PostgresServer {
  port: number;
  /** Connection string of a database on this server (default `postgres`). */
  url(database?: string): string;
  /** Creates an empty database and returns its connection string. */
  createDatabase(name: string): Promise<string>;
  /**
   * Sends a signal to the server and every one of its processes: SIGSTOP freezes it as a hung host
   * would (connections stay open, nothing answers), SIGCONT lets it go on.
   */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Stops the server at once (running connections are cut) and deletes its files. */
  stop(): Promise<void>;
}

/** Runs a PostgreSQL binary as the `postgres` user when we are root (initdb refuses root). */
function asPostgres(binary: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, binary);
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

/**
 * Starts a real PostgreSQL 15 server in a temporary directory: trust authentication, listening on
 * 127.0.0.1 at a free port, its socket in the same directory, durability off (tests only). Call
 * `stop()` in teardown; a crashed test process still stops it on exit.
 */
export async function startPostgres(options: { maxConnections?: number } = {}): Promise<PostgresServer> {
  if (!existsSync(join(PG_BIN, 'initdb'))) throw new Error(`PostgreSQL binaries not found in ${PG_BIN}`);
  const dir = mkdtempSync(join(tmpdir(), 'gas-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  await run(
    ...asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']),
  );

  const port = await findFreePort();
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    `-c max_connections=${options.maxConnections ?? 300}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  await run(
    ...asPostgres('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start']),
  );

  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    try {
      execFileSync(...asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']), {
        stdio: 'ignore',
      });
    } catch {
      // Already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopNow);

  const signal = (sig: 'SIGSTOP' | 'SIGCONT') => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
      .toString()
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, sig);
      } catch {
        // A backend that exited since `ps` listed it.
      }
    }
  };

  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    signal,
    async stop() {
      process.removeListener('exit', stopNow);
      // A frozen server cannot stop.
      try {
        signal('SIGCONT');
      } catch {
        // Not running.
      }
      stopNow();
    },
  };
}
