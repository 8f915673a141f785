import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import pg from 'pg';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { startBackend } from '../server/index';
import { freePort } from '../../scripts/lib/ports';
import { ENGINES } from './helpers/backends';
import { ANON_KEY, JWT_SECRET, signedIn } from './helpers/clients';
import { randomOrders } from './helpers/load';
import { freshToken, invariantViolations, trader } from './helpers/market';

jest.setTimeout(240_000);
const ROOT = path.resolve(__dirname, '../..');
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The backend as its own process, as `npm start` runs it, so it can be killed for real. */
async function spawnServer(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'supabase/server/index.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('backend on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  child.removeAllListeners('exit');
  return child;
}

describe.each(ENGINES)('a crash of the server on %s', (engine) => {
  it('loses nothing acknowledged: kill -9 mid-load, restart, every order is there and the books balance', async () => {
    const port = await freePort();
    const url = `http://localhost:${port}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'repex-crash-'));
    let databaseUrl = '';
    if (engine === 'postgres') {
      const name = `repex_crash_${process.pid}_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      const u = new URL(ADMIN_URL);
      u.pathname = `/${name}`;
      databaseUrl = u.toString();
    }
    const env = { SUPABASE_PORT: String(port), DATA_DIR: path.join(dataDir, 'db'), DATABASE_URL: databaseUrl, JWT_SECRET };
    // Prepare traders with cash and tokens of a fresh token, in-process, before the server runs.
    const prepared = await startBackend({ port: 0, dataDir: env.DATA_DIR, databaseUrl: databaseUrl || undefined });
    const token = await freshToken(prepared);
    const emails: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = await trader(prepared, { cash: 5000, token, tokens: 300 });
      emails.push((await t.client.auth.getUser()).data.user!.email!);
    }
    await prepared.close();

    let server = await spawnServer(env);
    const serviceKey = await new SignJWT({ role: 'service_role' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
    const service = createClient(url, ANON_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { headers: { Authorization: `Bearer ${serviceKey}` } },
      realtime: { transport: WebSocket as unknown as typeof globalThis.WebSocket },
    });
    const traders = await Promise.all(emails.map((email) => signedIn(url, { email, password: 'password-123' })));

    let stop = false;
    const load = Promise.all(traders.map((c, i) => randomOrders(c, [token], { count: 10_000, seed: 100 + i, until: () => stop })));
    await new Promise((r) => setTimeout(r, 1500));
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    stop = true;
    const results = await load;
    const acknowledged = results.flatMap((r) => r.acknowledged);
    console.log(`${engine}: ${acknowledged.length} orders acknowledged before the kill`);
    expect(acknowledged.length).toBeGreaterThan(20); // the load really placed orders before the kill

    server = await spawnServer(env);
    // Every order the server acknowledged before the crash is still there.
    const found = new Set<number>();
    for (let i = 0; i < acknowledged.length; i += 200) {
      const { data, error } = await service.from('orders').select('id').in('id', acknowledged.slice(i, i + 200));
      expect(error).toBeNull();
      for (const o of data as { id: number }[]) found.add(o.id);
    }
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));

    const backend = await startBackend({ port: 0, dataDir: env.DATA_DIR, databaseUrl: databaseUrl || undefined });
    try {
      expect(await invariantViolations(backend)).toEqual([]);
    } finally {
      await backend.close();
      if (databaseUrl) {
        const admin = new pg.Client({ connectionString: ADMIN_URL });
        await admin.connect();
        await admin.query(`drop database if exists ${new URL(databaseUrl).pathname.slice(1)} with (force)`);
        await admin.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
