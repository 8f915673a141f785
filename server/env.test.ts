/** @jest-environment node */
import { ConfigError, ENV_SCHEMA, readEnv } from './env';

describe('the configuration schema', () => {
  it('reads nothing into defaults: unset or empty stays undefined, for the owner of the setting to decide', () => {
    const set = readEnv({ FRAUD_SCAN_MS: '', SEED: undefined });
    expect(set.FRAUD_SCAN_MS).toBeUndefined();
    expect(set.SEED).toBeUndefined();
  });

  it('parses good values into their types', () => {
    const set = readEnv({
      FRAUD_SCAN_MS: '60000',
      SEED: 'false',
      SERVER_PROCESSES: 'auto',
      DB_POOL: '24',
      TEST_ENGINES: 'pglite',
      RATE_LIMITS: 'signIn=5/60',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
      SUPABASE_ANON_KEY: 'sb_publishable_3f9aQ-x',
    });
    expect(set.SUPABASE_ANON_KEY).toBe('sb_publishable_3f9aQ-x');
    expect(set.FRAUD_SCAN_MS).toBe(60_000);
    expect(set.SEED).toBe(false);
    expect(set.SERVER_PROCESSES).toBe('auto');
    expect(set.DB_POOL).toBe(24);
    expect(set.TEST_ENGINES).toEqual(['pglite']);
    expect(set.RATE_LIMITS?.signIn).toEqual({ capacity: 5, perSeconds: 60 });
  });

  it.each([
    ['FRAUD_SCAN_MS', '1m', 'a whole number of milliseconds, 10 or more'],
    ['FRAUD_SCAN_MS', '1', 'a whole number of milliseconds, 10 or more'],
    ['AUTO_INVEST_MS', '5e3', 'a whole number of milliseconds, 10 or more'],
    ['PAYOUT_AFTER_MS', '-1', 'a whole number of milliseconds, 0 or more'],
    ['SUPABASE_PORT', '70000', 'a port number from 1 to 65535'],
    ['SHELL_PORT', 'http', 'a port number from 1 to 65535'],
    ['SEED', 'no', 'true or false'],
    ['SERVER_PROCESSES', '0', 'a whole number of at least 1, or auto'],
    ['DATABASE_URL', 'mysql://localhost/db', 'a postgres:// or postgresql:// URL'],
    ['SUPABASE_URL', 'localhost:54321', 'an http:// or https:// URL'],
    ['JWT_SECRET', 'short', 'a secret of at least 32 characters'],
    ['SESSION_INACTIVITY_TIMEOUT', '30d', 'a whole number of seconds, 0 for never'],
    ['RATE_LIMITS', 'signin=5', 'off, or name=count/seconds pairs separated by commas (docs/security.md)'],
    ['TEST_ENGINES', 'sqlite', 'pglite, postgres, or both separated by a comma'],
    ['RELEASES_KEPT', '1', 'a whole number of at least 2'],
    ['SUPABASE_ANON_KEY', 'two words', 'the project’s anon or publishable key'],
    ['SMTP_URL', 'mail.example.com', 'an smtp:// or smtps:// URL'],
  ])('refuses %s=%s in words', (name, value, accepts) => {
    expect(() => readEnv({ [name]: value })).toThrow(`${name}="${value}": expected ${accepts}`);
  });

  it('names every bad variable at once', () => {
    try {
      readEnv({ FRAUD_SCAN_MS: '1m', DB_POOL: 'ten', SEED: 'true' });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.name).sort()).toEqual(['DB_POOL', 'FRAUD_SCAN_MS']);
    }
  });

  it("covers every variable of the README's configuration table", async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const readme = fs.readFileSync(path.resolve(__dirname, '../README.md'), 'utf8');
    const table = readme.slice(
      readme.indexOf('## Configuration'),
      readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5),
    );
    const names = [...table.matchAll(/^\| (.+?) \|/gm)]
      .flatMap((m) => [...m[1]!.matchAll(/`([A-Z][A-Z_<>]+)`/g)].map((n) => n[1]!))
      .flatMap((n) =>
        n.includes('<NAME>')
          ? ['MARKET', 'PORTFOLIO', 'TRADING', 'WALLET', 'ADMIN'].map((r) => n.replace('<NAME>', r))
          : [n],
      );
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((n) => !(n in ENV_SCHEMA.shape))).toEqual([]);
  });
});
