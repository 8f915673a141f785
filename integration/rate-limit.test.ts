import type { Backend } from '../server/index';
import { rateLimitsFromEnv } from '../server/http/rateLimit';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, DEMO, client, signedIn } from './harness/clients';
import { confirmSignUp } from './harness/mail';

const signInRaw = (url: string, email: string, password: string, forwardedFor?: string) =>
  fetch(`${url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: {
      apikey: ANON_KEY,
      'Content-Type': 'application/json',
      ...(forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {}),
    },
    body: JSON.stringify({ email, password }),
  });

describe.each(ENGINES)('auth rate limits on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      rateLimits: rateLimitsFromEnv(
        'signIn=8/300,signUp=3/300,refresh=3/300,accountFailures=3/900,passwordChange=2/300',
      ),
    })();
  });
  afterAll(() => backend.close());

  it('locks an account after repeated wrong passwords, with 429 and Retry-After, even for the right one', async () => {
    for (let i = 0; i < 3; i++) expect((await signInRaw(backend.url, DEMO.email, 'wrong-password')).status).toBe(400);
    const locked = await signInRaw(backend.url, DEMO.email, 'wrong-password');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.json()).toMatchObject({
      error_code: 'over_request_rate_limit',
      msg: 'Too many failed sign-in attempts for this account. Try again later.',
    });
    // The right password does not get through while the account is locked (a guesser cannot tell).
    const { error } = await client(backend.url).auth.signInWithPassword(DEMO);
    expect(error?.status).toBe(429);
  });

  it('limits sign-in attempts and sign-ups per address', async () => {
    // 5 of the 8 sign-ins were spent by the test above from this address; 3 more are allowed, then 429.
    for (let i = 0; i < 3; i++)
      expect((await signInRaw(backend.url, `nobody${i}@test.repx.dev`, 'x')).status).toBe(400);
    expect((await signInRaw(backend.url, 'nobody@test.repx.dev', 'x')).status).toBe(429);
    // A forged X-Forwarded-For does not buy new attempts: the address is the connection's.
    expect((await signInRaw(backend.url, 'nobody@test.repx.dev', 'x', '203.0.113.9')).status).toBe(429);

    const c = client(backend.url);
    for (let i = 0; i < 3; i++) {
      expect(
        (await c.auth.signUp({ email: `limited${Date.now()}${i}@test.repx.dev`, password: 'password-123' })).error,
      ).toBeNull();
    }
    const refused = await c.auth.signUp({ email: `limited${Date.now()}x@test.repx.dev`, password: 'password-123' });
    expect(refused.error?.status).toBe(429);
    expect(refused.error?.message).toBe('Request rate limit reached');
  });

  it('limits refreshes and password changes', async () => {
    const limited = await backendFor(engine, { rateLimits: rateLimitsFromEnv('refresh=3/300,passwordChange=2/300') })();
    try {
      const c = await signedIn(limited.url, DEMO);
      for (let i = 0; i < 3; i++) expect((await c.auth.refreshSession()).error).toBeNull();
      expect((await c.auth.refreshSession()).error?.status).toBe(429);
      const user = client(limited.url);
      const email = `pw${Date.now()}@test.repx.dev`;
      await user.auth.signUp({ email, password: 'password-123' });
      await confirmSignUp(limited.db, user, email);
      const change = (password: string, current: string) =>
        user.auth.updateUser({ password, current_password: current });
      expect((await change('password-124', 'password-123')).error).toBeNull();
      expect((await change('password-125', 'password-124')).error).toBeNull();
      expect((await change('password-126', 'password-125')).error?.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('mails a sign-up code once a minute per address: the same sign-up again inside it changes nothing, another replaces it within its bound, a resend waits', async () => {
    const limited = await backendFor(engine, { rateLimits: rateLimitsFromEnv('signUp=10/300,signUpRepeat=1/900') })();
    try {
      const c = client(limited.url);
      const email = `minute${Date.now()}@test.repx.dev`;
      const mails = async () =>
        (await limited.db.query('select 1 from local_server.outbox where recipient = $1', [email])).length;
      expect((await c.auth.signUp({ email, password: 'first-password' })).error).toBeNull();
      expect((await c.auth.signUp({ email, password: 'first-password' })).error).toBeNull(); // a double click
      expect(await mails()).toBe(1);
      expect((await c.auth.signUp({ email, password: 'second-password' })).error).toBeNull();
      expect(await mails()).toBe(2);
      const third = await c.auth.signUp({ email, password: 'third-password' });
      expect(third.error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
      const resent = await c.auth.resend({ type: 'signup', email });
      expect(resent.error?.status).toBe(429);
      expect(resent.error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
      expect(await mails()).toBe(2);
      // The latest code confirms the password it was mailed for.
      await confirmSignUp(limited.db, c, email);
      const signIn = (password: string) => client(limited.url).auth.signInWithPassword({ email, password });
      expect((await signIn('first-password')).error?.message).toBe('Invalid login credentials');
      expect((await signIn('third-password')).error?.message).toBe('Invalid login credentials');
      expect((await signIn('second-password')).error).toBeNull();
    } finally {
      await limited.close();
    }
  });
});

describe('RATE_LIMITS', () => {
  it('reads overrides and refuses what it cannot read', () => {
    expect(rateLimitsFromEnv('signIn=5/60').signIn).toEqual({ capacity: 5, perSeconds: 60 });
    expect(() => rateLimitsFromEnv('signin=5')).toThrow(/cannot read "signin=5"/);
    expect(rateLimitsFromEnv('off').signIn.capacity).toBeGreaterThan(1000);
  });
});
