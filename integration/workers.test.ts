import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { startBackend, type Backend } from '../server/index';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { ENGINES, createDatabase, dropDatabase, eventually } from './harness/backends';
import { JWT_SECRET } from './harness/clients';
import { trader } from './harness/market';
import { freePort } from './harness/ports';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..');

/** An SMTP server on this machine that keeps what it receives: the envelope's recipients and the raw message. */
async function smtpReceiver() {
  const received: { to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** `npm run workers` as its own process over `databaseUrl`; resolves when it is on, or rejects with what it said on exit. */
function spawnWorkers(
  databaseUrl: string,
  env: Record<string, string> = {},
): { child: ChildProcess; started: Promise<void>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/workersMain.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PAYMENT_DELAY_MS: '50', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const started = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('workers on')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`workers exited with ${code}: ${out}`)));
  });
  return { child, started, output: () => out };
}

// The workers' own process serves a PostgreSQL database (a hosted project's is one); PGlite is one process.
const onPostgres = ENGINES.includes('postgres') ? describe : describe.skip;

onPostgres('npm run workers, over a database the server does not run workers for', () => {
  let url: string;
  let backend: Backend;
  beforeAll(async () => {
    url = await createDatabase('repex_workers');
  });
  afterAll(async () => {
    await backend?.close();
    await dropDatabase(url);
  });

  it('refuses a database the migrations have not been applied to, saying what to do', async () => {
    await expect(spawnWorkers(url).started).rejects.toThrow(
      /workers exited with 1: The database lacks \d+ of supabase\/migrations \(the first: \d+_baseline\.sql\): apply them first/,
    );
  });

  it('settles a deposit, proves a connected account and mails a new bank account by SMTP, then stops on SIGTERM', async () => {
    backend = await startBackend({
      port: 0,
      databaseUrl: url,
      jwtSecret: JWT_SECRET,
      rateLimits: NO_RATE_LIMITS,
      seed: false,
      workers: false,
      // Were its workers on, they would answer at once.
      payments: { delayMs: 0 },
      social: { delayMs: 0, pollMs: 100 },
    });
    const t = await trader(backend);
    const deposit = await t.client.rpc('create_deposit', {
      p_amount: 250,
      p_card: '4242 4242 4242 4242',
      p_idempotency_key: crypto.randomUUID(),
    });
    expect(deposit.error).toBeNull();
    const started = await t.client.rpc('start_social_connection', { p_platform: 'x', p_handle: 'genuine_creator' });
    expect(started.error).toBeNull();
    expect((await t.client.rpc('check_social_connection', { p_platform: 'x' })).error).toBeNull();
    // Nothing in the server takes them: after longer than its workers' poll, both still wait.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const [before] = await backend.db.query<{ payment: string; account: string }>(
      `select (select status from wallet_transactions where user_id = $1) as payment,
              (select status from social_accounts where user_id = $1) as account`,
      [t.id],
    );
    expect(before).toEqual({ payment: 'pending', account: 'checking' });

    const added = await t.client.rpc('add_payout_destination', {
      p_label: 'Checking',
      p_account_number: '0001 2345-6789',
    });
    expect(added.error).toBeNull();

    const smtp = await smtpReceiver();
    const workers = spawnWorkers(url, { SMTP_URL: smtp.url, MAIL_FROM: 'RepX <security@repx.test>' });
    await workers.started;
    expect(workers.output()).toContain('account mail by SMTP');
    const completed = await eventually(async () => {
      const [row] = await backend.db.query<{ status: string; available: string }>(
        `select w.status, c.available from wallet_transactions w join cash_accounts c using (user_id) where w.user_id = $1`,
        [t.id],
      );
      return row?.status === 'completed' ? row : undefined;
    }, 20_000);
    expect(Number(completed.available)).toBe(250);
    const account = await eventually(async () => {
      const { data } = await t.client.from('social_accounts').select('status, followers').eq('platform', 'x').single();
      return data?.status === 'connected' ? data : undefined;
    }, 20_000);
    expect(account.followers).toBeGreaterThan(0);

    const [email] = await backend.db.query<{ email: string }>('select email from auth.users where id = $1', [t.id]);
    const mail = await eventually(async () => smtp.received.find((m) => m.to.includes(email!.email)), 20_000);
    expect(mail.raw).toContain('Subject: A bank account was added to your RepX account');
    expect(mail.raw).toContain('From: RepX <security@repx.test>');
    expect(mail.raw).toMatch(
      /The bank account Checking =E2=80=A2=E2=80=A2=E2=80=A2=E2=80=A2 6789|The bank account Checking •••• 6789/,
    );
    // Taken once: nothing is left to send, once the worker has recorded the mail it just sent.
    const left = async () =>
      (
        await backend.db.query<{ n: number }>(
          'select count(*)::int as n from private.account_mail where user_id = $1 and sent_at is null',
          [t.id],
        )
      )[0]!.n;
    await eventually(async () => ((await left()) === 0 ? true : undefined), 10_000);
    await new Promise((r) => setTimeout(r, 500));
    const bankMail = (m: { raw: string }) => m.raw.includes('Subject: A bank account was added');
    expect(smtp.received.filter((m) => m.to.includes(email!.email) && bankMail(m))).toHaveLength(1);

    const exited = new Promise<number | null>((resolve) => workers.child.once('exit', resolve));
    workers.child.kill('SIGTERM');
    await expect(exited).resolves.toBe(0);
    await smtp.close();
  });
});
