import type { Backend } from '../server/index';
import { ENGINES, backendFor } from '../harness/backends';
import { ANON_KEY, DEMO, signedIn } from '../harness/clients';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { trader } from '../harness/market';

/** A real 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const png = () => new Blob([PNG], { type: 'image/png' });

describe.each(ENGINES)('storage on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it("uploads into one's own folder, serves it publicly, lists by name (100 by default), replaces and removes", async () => {
    const me = await trader(backend);
    const bucket = me.client.storage.from('avatars');
    const up = await bucket.upload(`${me.id}/avatar.png`, png());
    expect(up.error).toBeNull();
    expect(up.data).toMatchObject({ path: `${me.id}/avatar.png`, fullPath: `avatars/${me.id}/avatar.png` });

    // The public URL works without any key, as an <img> loads it.
    const {
      data: { publicUrl },
    } = bucket.getPublicUrl(`${me.id}/avatar.png`);
    const served = await fetch(publicUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);

    // Uploading the same path again needs upsert.
    expect((await bucket.upload(`${me.id}/avatar.png`, png())).error?.message).toBe('The resource already exists');
    expect((await bucket.upload(`${me.id}/avatar.png`, png(), { upsert: true })).error).toBeNull();

    for (const name of ['b.png', 'a.png']) await bucket.upload(`${me.id}/${name}`, png());
    const { data: files } = await bucket.list(me.id);
    expect(files!.map((f) => f.name)).toEqual(['a.png', 'avatar.png', 'b.png']);
    expect((await bucket.list(me.id, { limit: 1, offset: 1 })).data!.map((f) => f.name)).toEqual(['avatar.png']);
    const { data: blob } = await bucket.download(`${me.id}/a.png`);
    expect(Buffer.from(await blob!.arrayBuffer()).equals(PNG)).toBe(true);

    const { data: removed } = await bucket.remove([`${me.id}/b.png`]);
    expect(removed).toHaveLength(1);
    expect((await bucket.list(me.id)).data!.map((f) => f.name)).toEqual(['a.png', 'avatar.png']);
  });

  it("refuses another user's folder, anon writes, 20 MB, and a file that is not an image", async () => {
    const me = await trader(backend);
    const other = await trader(backend);
    await me.client.storage.from('avatars').upload(`${me.id}/mine.png`, png());
    const theirs = other.client.storage.from('avatars');
    const intrude = await theirs.upload(`${me.id}/evil.png`, png());
    expect(intrude.error?.message).toBe('new row violates row-level security policy');
    expect((await theirs.remove([`${me.id}/mine.png`])).data).toEqual([]); // not theirs to remove
    expect(
      (await theirs.upload(`${other.id}/big.png`, new Blob([Buffer.alloc(20 * 1024 * 1024)], { type: 'image/png' })))
        .error?.message,
    ).toBe('The object exceeded the maximum allowed size');
    const fake = await theirs.upload(`${other.id}/fake.png`, new Blob(['not an image'], { type: 'image/png' }));
    expect(fake.error?.message).toBe('mime type image/png is not supported');
    const text = await theirs.upload(`${other.id}/notes.txt`, new Blob(['hello'], { type: 'text/plain' }));
    expect(text.error?.message).toBe('mime type text/plain is not supported');
    const { data: stored } = await theirs.list(other.id);
    expect(stored).toEqual([]);
  });

  it("a person's avatar follows to their token, so it shows wherever they appear", async () => {
    const demo = await signedIn(backend.url, DEMO);
    const {
      data: { user },
    } = await demo.auth.getUser();
    await demo.storage.from('avatars').upload(`${user!.id}/avatar.png`, png(), { upsert: true });
    const url = demo.storage.from('avatars').getPublicUrl(`${user!.id}/avatar.png`).data.publicUrl;
    expect((await demo.from('profiles').update({ avatar_url: url }).eq('id', user!.id)).error).toBeNull();
    const { data } = await demo.from('market_tokens').select('avatar_url').eq('owner_id', user!.id).single();
    expect(data).toEqual({ avatar_url: url });
  });

  it("a profile image is the person's own upload: no other URL is kept, for anyone's browser to fetch", async () => {
    const me = await trader(backend);
    const other = await trader(backend);
    const bucket = (who: typeof me) => who.client.storage.from('avatars');
    await bucket(other).upload(`${other.id}/avatar.png`, png());
    const publicUrl = (path: string) => bucket(me).getPublicUrl(path).data.publicUrl;
    const refused = [
      'https://tracker.example/pixel.png',
      'javascript:alert(1)',
      publicUrl(`${other.id}/avatar.png`), // someone else's picture
      publicUrl(`${me.id}/never-uploaded.png`),
      publicUrl(`${me.id}/avatar.png`).replace('/public/avatars/', '/public/other-bucket/'),
      `${publicUrl(`${me.id}/avatar.png`)}?track=1`,
      // The right path on another host, an internal address, or another port of this one.
      publicUrl(`${me.id}/avatar.png`).replace(/^http:\/\/[^/]+/, 'https://tracker.example'),
      publicUrl(`${me.id}/avatar.png`).replace(/^http:\/\/[^/]+/, 'http://169.254.169.254'),
      publicUrl(`${me.id}/avatar.png`).replace(/:(\d+)\//, ':1/'),
    ];
    for (const url of refused) {
      for (const column of ['avatar_url', 'cover_url']) {
        const { error } = await me.client
          .from('profiles')
          .update({ [column]: url })
          .eq('id', me.id);
        expect([url, column, error?.message]).toEqual([
          url,
          column,
          'A profile image must be a picture uploaded to your own profile.',
        ]);
      }
    }
    const read = async () =>
      (await me.client.from('profiles').select('avatar_url, cover_url').eq('id', me.id).single()).data;
    expect(await read()).toEqual({ avatar_url: null, cover_url: null });

    await bucket(me).upload(`${me.id}/avatar.png`, png());
    const mine = publicUrl(`${me.id}/avatar.png`);
    const saved = await me.client.from('profiles').update({ avatar_url: mine, cover_url: mine }).eq('id', me.id);
    expect(saved.error).toBeNull();
    expect(await read()).toEqual({ avatar_url: mine, cover_url: mine });
    // Other edits with the images unchanged, and removing an image, need no check.
    const edits = await me.client
      .from('profiles')
      .update({ bio: 'Hello', avatar_url: mine, cover_url: null })
      .eq('id', me.id);
    expect(edits.error).toBeNull();
    expect(await read()).toEqual({ avatar_url: mine, cover_url: null });
  });
});

describe.each(ENGINES)('storage limits on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine, {
      rateLimits: { ...NO_RATE_LIMITS, upload: { capacity: 6, perSeconds: 60 } },
    })();
  });
  afterAll(() => backend.close());

  const image = (bytes: number) =>
    new Blob([Buffer.concat([PNG, Buffer.alloc(bytes - PNG.length)])], { type: 'image/png' });

  it('keeps a person to 20 MB of images, a replaced image counting once, and to a number of uploads a minute', async () => {
    const me = await trader(backend);
    const bucket = me.client.storage.from('avatars');
    for (const name of ['1', '2', '3', '4'])
      expect((await bucket.upload(`${me.id}/${name}.png`, image(5_000_000))).error).toBeNull();
    // A replaced image counts once: the four are 20,000,000 bytes of the 20 MB.
    expect((await bucket.upload(`${me.id}/4.png`, image(5_000_000), { upsert: true })).error).toBeNull();
    const over = await bucket.upload(`${me.id}/5.png`, image(1_000_000));
    expect(over.error?.message).toBe('You can keep up to 20 MB of images: remove one to upload another.');
    expect((await bucket.list(me.id)).data?.map((o) => o.name)).toEqual(['1.png', '2.png', '3.png', '4.png']);
    // Six uploads a minute here: the seventh waits, and says so.
    const limited = await bucket.upload(`${me.id}/6.png`, png());
    expect(limited.error?.message).toMatch(/^Too many uploads: try again in \d+ seconds\.$/);
    await bucket.remove([`${me.id}/1.png`]);
    expect((await bucket.list(me.id)).data?.map((o) => o.name)).toEqual(['2.png', '3.png', '4.png']);
  });

  it('answers a malformed path or form in words, never with a 500', async () => {
    const me = await trader(backend);
    const token = (await me.client.auth.getSession()).data.session!.access_token;
    const headers = { apikey: ANON_KEY, Authorization: `Bearer ${token}` };
    const publicRead = await fetch(`${backend.url}/storage/v1/object/public/avatars/%E0%A4%A`);
    expect([publicRead.status, (await publicRead.json()).message]).toEqual([
      400,
      'The path holds a malformed percent-escape.',
    ]);
    const form = await fetch(`${backend.url}/storage/v1/object/avatars/${me.id}/x.png`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\nContent-Disposition: form-data; name="file"\r\n\r\nno end',
    });
    expect([form.status, (await form.json()).message]).toEqual([400, 'The multipart body could not be read.']);
  });

  it('refuses a NUL or another control character in a path, a prefix or a name with a 400', async () => {
    const me = await trader(backend);
    const token = (await me.client.auth.getSession()).data.session!.access_token;
    const headers = { apikey: ANON_KEY, Authorization: `Bearer ${token}` };
    const base = `${backend.url}/storage/v1/object`;
    const answers = await Promise.all([
      fetch(`${base}/public/avatars/${me.id}/a%00.png`),
      fetch(`${base}/authenticated/avatars/${me.id}/a%00.png`, { headers }),
      fetch(`${base}/avatars/${me.id}/a%01.png`, { headers }),
      fetch(`${base}/list/avatars`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prefix: `${me.id}\u0000` }),
      }),
      fetch(`${base}/avatars`, {
        method: 'DELETE',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prefixes: [`${me.id}/a\u0000.png`] }),
      }),
    ]);
    for (const a of answers)
      expect([a.status, (await a.json()).message]).toEqual([400, 'A name or path cannot hold control characters.']);
    const upload = await me.client.storage.from('avatars').upload(`${me.id}/b\u0000.png`, png());
    expect(upload.error?.message).toBe('A name or path cannot hold control characters.');
  });
});
