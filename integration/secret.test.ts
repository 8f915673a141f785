import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { startBackend, type BackendOptions } from '../server/index';
import { DEMO_ACCOUNTS, DEMO_ANON_KEY, DEMO_JWT_SECRET } from '../server/demo';
import { ENGINES, createDatabase, dropDatabase } from './harness/backends';
import { client } from './harness/clients';

describe.each(ENGINES)('a fresh install on %s', (engine) => {
  let store: BackendOptions;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    if (engine === 'postgres') {
      const url = await createDatabase('repex_secret');
      store = { databaseUrl: url };
      cleanup = () => dropDatabase(url);
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repex-secret-'));
      store = { dataDir: path.join(dir, 'db') };
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(() => cleanup());

  it('signs with its own generated secret, refuses the demo one, and keeps its secret across a restart', async () => {
    let backend = await startBackend({ port: 0, ...store });
    let sessionToken: string;
    try {
      expect(backend.anonKey).not.toBe(DEMO_ANON_KEY);
      const user = client(backend.url, backend.anonKey);
      const { data, error } = await user.auth.signInWithPassword(DEMO_ACCOUNTS.user);
      expect(error).toBeNull();
      sessionToken = data.session!.access_token;

      // The CLI's public anon key is not a key of this installation.
      const withDemoKey = client(backend.url, DEMO_ANON_KEY);
      expect((await withDemoKey.auth.signInWithPassword(DEMO_ACCOUNTS.user)).error?.status).toBe(401);

      // A service_role token forged with the public demo secret cannot bypass row-level security.
      const forged = await new SignJWT({ role: 'service_role' })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(DEMO_JWT_SECRET));
      const attacker = client(backend.url, backend.anonKey, { Authorization: `Bearer ${forged}` });
      const attack = await attacker
        .from('cash_accounts')
        .update({ available: 9_999_999 })
        .eq('user_id', data.user!.id)
        .select();
      expect(attack.status).toBe(401);
      const [row] = await backend.db.query<{ available: string }>(
        'select available from cash_accounts where user_id = $1',
        [data.user!.id],
      );
      expect(Number(row!.available)).toBeLessThan(9_999_999);
    } finally {
      await backend.close();
    }

    // Restarted on the same data: the same secret, so the session from before is still valid.
    backend = await startBackend({ port: 0, ...store });
    try {
      const again = client(backend.url, backend.anonKey);
      const { data, error } = await again.auth.getUser(sessionToken);
      expect(error).toBeNull();
      expect(data.user?.email).toBe(DEMO_ACCOUNTS.user.email);
    } finally {
      await backend.close();
    }
  });
});

it('refuses to listen beyond loopback with the public demo secret, and says why', async () => {
  await expect(startBackend({ port: 0, host: '0.0.0.0', jwtSecret: DEMO_JWT_SECRET })).rejects.toThrow(
    /Refusing to listen on 0\.0\.0\.0 with the Supabase CLI's public demo JWT secret/,
  );
});
