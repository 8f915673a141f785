import http from 'node:http';
import type { Backend } from '../server/index';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, SERVICE_ROLE_KEY, newUser } from './harness/clients';
import { lastCodeFor, mailsTo } from './harness/mail';

jest.setTimeout(120_000);

/** A JSON request from a given loopback address (127.0.0.0/8 is all this machine's): a browser elsewhere. */
function request(
  backend: Backend,
  from: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(backend.url + path);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: from,
        headers: { apikey: ANON_KEY, 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const signIn = (backend: Backend, from: string, email: string, password: string) =>
  request(backend, from, 'POST', '/auth/v1/token?grant_type=password', { email, password });

describe.each(ENGINES)('wrong passwords and codes on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      rateLimits: {
        ...NO_RATE_LIMITS,
        accountFailures: { capacity: 3, perSeconds: 900 },
        strangerFailures: { capacity: 6, perSeconds: 900 },
      },
    })();
  });
  afterAll(() => backend.close());

  it('lock a guessing address out, and strangers spread over many, but never the owner at an address they have used', async () => {
    const { email } = await newUser(backend.url, 'owner');
    expect((await signIn(backend, '127.0.0.1', email, 'password-123')).status).toBe(200); // the owner's address
    for (let i = 0; i < 3; i++) expect((await signIn(backend, '127.0.0.2', email, 'wrong')).status).toBe(400);
    expect((await signIn(backend, '127.0.0.2', email, 'wrong')).status).toBe(429);
    // Other strangers: the account's stranger bound (6 here) stops the spread guessing.
    for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5'])
      expect((await signIn(backend, from, email, 'wrong')).status).toBe(400);
    expect((await signIn(backend, '127.0.0.6', email, 'password-123')).status).toBe(429);
    // The owner, at their own address, is not locked out by any of it.
    expect((await signIn(backend, '127.0.0.1', email, 'password-123')).status).toBe(200);
  });

  it('lets the owner in from a new address with a code mailed to the account, once, when strangers have locked it', async () => {
    const { email } = await newUser(backend.url, 'phone');
    for (const from of ['127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4', '127.0.1.5', '127.0.1.6'])
      expect((await signIn(backend, from, email, 'wrong')).status).toBe(400);
    // The owner on a phone, at an address never used: the password is refused, as the trade-off says.
    const phone = '127.0.1.50';
    expect((await signIn(backend, phone, email, 'password-123')).status).toBe(429);
    // A code mailed to the account's own address signs them in there.
    const before = (await mailsTo(backend.db, email)).length;
    expect((await request(backend, phone, 'POST', '/auth/v1/otp', { email, create_user: false })).status).toBe(200);
    const mails = await mailsTo(backend.db, email);
    expect(mails).toHaveLength(before + 1);
    expect(mails.at(-1)!.subject).toBe('Your RepX sign-in code');
    const code = (await lastCodeFor(backend.db, email))!;
    const signedIn = await request(backend, phone, 'POST', '/auth/v1/verify', { type: 'email', email, token: code });
    expect([signedIn.status, (signedIn.body.user as { email: string }).email]).toEqual([200, email]);
    // Once: the code is spent.
    const again = await request(backend, phone, 'POST', '/auth/v1/verify', { type: 'email', email, token: code });
    expect(again.status).toBe(403);
    // A stranger who asks for a code gets none of theirs, and an unknown address is answered alike.
    const unknown = `nobody${Date.now()}@test.repx.dev`;
    expect((await request(backend, '127.0.1.60', 'POST', '/auth/v1/otp', { email: unknown })).status).toBe(200);
    expect(await mailsTo(backend.db, unknown)).toEqual([]);
  });

  it('counts a guess before checking it, so concurrent guesses cannot outrun the count', async () => {
    const { email } = await newUser(backend.url, 'burst');
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn(backend, '127.0.0.7', email, 'wrong')));
    expect(answers.filter((a) => a.status === 400)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(17);
  });

  it('counts one account however its address is written (the database finds it, the database keys it)', async () => {
    const { email } = await newUser(backend.url, 'viiv');
    const dotted = email.replace('vi', 'vİ'); // SQL lower() finds the same account
    for (let i = 0; i < 3; i++) await signIn(backend, '127.0.0.8', dotted, 'wrong');
    expect((await signIn(backend, '127.0.0.8', email, 'wrong')).status).toBe(429);
  });

  it("does not let a stranger's wrong codes spend the owner's code for a new email", async () => {
    const owner = await newUser(backend.url, 'mover');
    const target = `moved${Date.now()}@test.repx.dev`;
    const token = (await owner.client.auth.getSession()).data.session!.access_token;
    const asked = await request(
      backend,
      '127.0.0.1',
      'PUT',
      '/auth/v1/user',
      { email: target, current_password: 'password-123' },
      {
        Authorization: `Bearer ${token}`,
      },
    );
    expect(asked.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const wrong = await request(backend, '127.0.0.9', 'POST', '/auth/v1/verify', {
        type: 'email_change',
        email: target,
        token: '00000000',
      });
      expect(wrong.status).toBe(i < 3 ? 403 : 429);
    }
    const code = await lastCodeFor(backend.db, target);
    const right = await request(backend, '127.0.0.1', 'POST', '/auth/v1/verify', {
      type: 'email_change',
      email: target,
      token: code,
    });
    expect([right.status, right.body.email]).toEqual([200, target]);
  });
});

describe.each(ENGINES)('auth answers that give nothing away, and limits on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it("asks for the password before saying whether a new email is someone else's", async () => {
    const me = await newUser(backend.url, 'asker');
    const other = await newUser(backend.url, 'taken');
    const { error: taken } = await me.client.auth.updateUser({ email: other.email });
    const { error: free } = await me.client.auth.updateUser({ email: `free${Date.now()}@test.repx.dev` });
    expect([taken?.code, free?.code]).toEqual(['current_password_required', 'current_password_required']);
  });

  it('turns two-step verification on only after a recent sign-in', async () => {
    const me = await newUser(backend.url, 'enroller');
    const session = (await me.client.auth.getSession()).data.session!;
    const sessionId = JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString()).session_id;
    await backend.db.query(`update auth.sessions set created_at = now() - interval '20 minutes' where id = $1`, [
      sessionId,
    ]);
    await me.client.auth.refreshSession(); // a token whose proof of sign-in is 20 minutes old
    const { error } = await me.client.auth.mfa.enroll({ factorType: 'totp' });
    expect([error?.code, error?.message]).toEqual([
      'reauthentication_needed',
      'For your security, enter your password to turn on two-step verification.',
    ]);
    await me.client.auth.signInWithPassword({ email: me.email, password: 'password-123' });
    expect((await me.client.auth.mfa.enroll({ factorType: 'totp' })).error).toBeNull();
  });

  it('counts a password in bytes, as bcrypt reads it: none over 72 is set, and none over 72 signs in', async () => {
    const me = await newUser(backend.url, 'longpass');
    const long = `${'é'.repeat(36)}tail-one`; // 44 characters, 80 bytes
    const refused = await me.client.auth.updateUser({ password: long });
    expect(refused.error?.message).toBe('Password cannot be longer than 72 characters');
    const signUp = await request(backend, '127.0.0.1', 'POST', '/auth/v1/signup', {
      email: `long${Date.now()}@test.repx.dev`,
      password: long,
    });
    expect([signUp.status, signUp.body.msg]).toEqual([422, 'Password cannot be longer than 72 characters']);
    // A hash made elsewhere of such a password (bcrypt keeps its first 72 bytes): no tail opens it.
    await backend.db.query(
      `update auth.users set encrypted_password = extensions.crypt($1, extensions.gen_salt('bf', 4)) where id = $2`,
      [long, me.id],
    );
    for (const tail of ['tail-one', 'other-tail'])
      expect((await signIn(backend, '127.0.0.9', me.email, `${'é'.repeat(36)}${tail}`)).status).toBe(400);
    await backend.db.query(
      `update auth.users set encrypted_password = extensions.crypt('é-short-ok', extensions.gen_salt('bf', 4)) where id = $1`,
      [me.id],
    );
    expect((await signIn(backend, '127.0.0.9', me.email, 'é-short-ok')).status).toBe(200);
  });

  it('bounds user_metadata, and refuses a token too long to be one', async () => {
    const me = await newUser(backend.url, 'meta');
    const big = { note: 'x'.repeat(9000) };
    const { error } = await me.client.auth.updateUser({ data: big });
    expect(error?.message).toBe('user_metadata holds at most 8 KB.');
    for (let i = 0; i < 3; i++) await me.client.auth.updateUser({ data: { [`part${i}`]: 'x'.repeat(3000) } });
    const { data } = await me.client.auth.getUser();
    expect(Object.keys(data.user!.user_metadata).filter((k) => k.startsWith('part'))).toEqual(['part0', 'part1']);
    const signUp = await request(backend, '127.0.0.1', 'POST', '/auth/v1/signup', {
      email: `big${Date.now()}@test.repx.dev`,
      password: 'password-123',
      data: big,
    });
    expect([signUp.status, signUp.body.msg]).toEqual([422, 'user_metadata holds at most 8 KB.']);
    const long = await request(backend, '127.0.0.1', 'GET', '/rest/v1/tokens?select=id', undefined, {
      Authorization: `Bearer ${'a'.repeat(13_000)}.b.c`,
    });
    expect(long.status).toBe(401);
  });

  it("lets the owner's own sign-up win over one someone made of their address a moment before", async () => {
    const email = `contested${Date.now()}@test.repx.dev`;
    const attacker = await request(backend, '127.0.0.2', 'POST', '/auth/v1/signup', {
      email,
      password: 'attacker-pass',
    });
    expect(attacker.status).toBe(200);
    const firstCode = await lastCodeFor(backend.db, email);
    const owner = await request(backend, '127.0.0.1', 'POST', '/auth/v1/signup', { email, password: 'owners-pass' });
    expect(owner.status).toBe(200);
    expect(await mailsTo(backend.db, email)).toHaveLength(2);
    const ownCode = await lastCodeFor(backend.db, email);
    expect(ownCode).not.toBe(firstCode);
    const stale = await request(backend, '127.0.0.1', 'POST', '/auth/v1/verify', {
      type: 'signup',
      email,
      token: firstCode,
    });
    expect(stale.status).toBe(403);
    const confirmed = await request(backend, '127.0.0.1', 'POST', '/auth/v1/verify', {
      type: 'signup',
      email,
      token: ownCode,
    });
    expect(confirmed.status).toBe(200);
    expect((await signIn(backend, '127.0.0.1', email, 'attacker-pass')).status).toBe(400);
    expect((await signIn(backend, '127.0.0.1', email, 'owners-pass')).status).toBe(200);
  });

  it('answers malformed input in words, never with a 500', async () => {
    const long = `${'a'.repeat(4000)}@x.com`;
    for (const [path, body] of [
      ['/auth/v1/token?grant_type=password', { email: long, password: 'x' }],
      ['/auth/v1/signup', { email: long, password: 'password-123' }],
      ['/auth/v1/recover', { email: long }],
      ['/auth/v1/verify', { type: 'recovery', email: long, token: '12345678' }],
      ['/auth/v1/token?grant_type=password', { email: 'a\u0000b@x.com', password: 'x' }],
      ['/auth/v1/signup', { email: `nul${Date.now()}@x.com`, password: 'pass\u0000word' }],
    ] as const) {
      const answer = await request(backend, '127.0.0.1', 'POST', path, body);
      expect([path, answer.status]).toEqual([path, 400]);
    }
    const cast = await request(backend, '127.0.0.1', 'GET', '/rest/v1/tokens?select=id::regclass');
    expect([cast.status, cast.body.message]).toEqual([400, 'A column cannot be cast to regclass.']);
  });

  it('lets no one but the functions that act write the audit log, the service role included', async () => {
    const service = await SERVICE_ROLE_KEY();
    const forged = await request(
      backend,
      '127.0.0.1',
      'POST',
      '/rest/v1/audit_log',
      { action: 'forged' },
      {
        apikey: service,
        Authorization: `Bearer ${service}`,
      },
    );
    expect([forged.status, forged.body.code]).toEqual([403, '42501']);
  });
});
