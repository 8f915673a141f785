import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { ANON_KEY, DEMO, signedIn } from './harness/clients';
import { NO_RATE_LIMITS } from '../server/http/rateLimit';
import { trader } from './harness/market';

/** A real 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const png = () => new Blob([PNG], { type: 'image/png' });
/** The kind and size of an image, as sharp reads it (a kept image is re-encoded, never the bytes sent). */
const shape = async (bytes: Buffer) => {
  const m = await sharp(bytes).metadata();
  return { format: m.format, width: m.width, height: m.height, exif: m.exif ?? null, xmp: m.xmp ?? null };
};
const ONE_PIXEL = { format: 'png', width: 1, height: 1, exif: null, xmp: null };

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
    await expect(shape(Buffer.from(await served.arrayBuffer()))).resolves.toEqual(ONE_PIXEL);

    // Uploading the same path again needs upsert.
    expect((await bucket.upload(`${me.id}/avatar.png`, png())).error?.message).toBe('The resource already exists');
    expect((await bucket.upload(`${me.id}/avatar.png`, png(), { upsert: true })).error).toBeNull();

    for (const name of ['b.png', 'a.png']) await bucket.upload(`${me.id}/${name}`, png());
    const { data: files } = await bucket.list(me.id);
    expect(files!.map((f) => f.name)).toEqual(['a.png', 'avatar.png', 'b.png']);
    expect((await bucket.list(me.id, { limit: 1, offset: 1 })).data!.map((f) => f.name)).toEqual(['avatar.png']);
    const { data: blob } = await bucket.download(`${me.id}/a.png`);
    await expect(shape(Buffer.from(await blob!.arrayBuffer()))).resolves.toEqual(ONE_PIXEL);

    const { data: removed } = await bucket.remove([`${me.id}/b.png`]);
    expect(removed).toHaveLength(1);
    expect((await bucket.list(me.id)).data!.map((f) => f.name)).toEqual(['a.png', 'avatar.png']);
  });

  it('keeps an image without where it was taken: metadata gone, turned upright, at most 2048 pixels a side', async () => {
    const me = await trader(backend);
    const bucket = me.client.storage.from('avatars');
    // A phone's photo: 60 wide and 40 high as stored, EXIF saying "turn it 90 degrees" and where it was.
    const photo = await sharp({ create: { width: 60, height: 40, channels: 3, background: '#3a7' } })
      .jpeg()
      .withExif({
        IFD0: { Make: 'PhoneCo', Copyright: 'home-48.8584N-2.2945E' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 30/1',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 17/1 40/1',
        },
      })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    expect(photo.includes('home-48.8584N')).toBe(true);
    expect(
      (await bucket.upload(`${me.id}/photo.jpg`, new Blob([new Uint8Array(photo)], { type: 'image/jpeg' }))).error,
    ).toBeNull();
    const served = Buffer.from(
      await (await fetch(bucket.getPublicUrl(`${me.id}/photo.jpg`).data.publicUrl)).arrayBuffer(),
    );
    await expect(shape(served)).resolves.toEqual({ format: 'jpeg', width: 40, height: 60, exif: null, xmp: null });
    expect(served.includes('home-48.8584N')).toBe(false);
    expect(served.includes('PhoneCo')).toBe(false);

    // A wide picture is kept at 2048 pixels on its longest side.
    const wide = await sharp({ create: { width: 3000, height: 100, channels: 3, background: '#333' } })
      .png()
      .toBuffer();
    expect(
      (await bucket.upload(`${me.id}/wide.png`, new Blob([new Uint8Array(wide)], { type: 'image/png' }))).error,
    ).toBeNull();
    const { data } = await bucket.download(`${me.id}/wide.png`);
    await expect(shape(Buffer.from(await data!.arrayBuffer()))).resolves.toMatchObject({ width: 2048, height: 68 });

    // A small file that claims a canvas of 100 million pixels is refused before it is decoded.
    const bomb = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#000' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const refused = await bucket.upload(`${me.id}/bomb.png`, new Blob([new Uint8Array(bomb)], { type: 'image/png' }));
    expect(refused.error?.message).toBe('The image is too large: at most 40 megapixels.');
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

  /** A PNG of noise, 1024 pixels square: about 4.2 MB, which encoding again cannot shrink. */
  const noise = async () =>
    new Blob(
      [
        new Uint8Array(
          await sharp(randomBytes(1024 * 1024 * 4), { raw: { width: 1024, height: 1024, channels: 4 } })
            .png()
            .toBuffer(),
        ),
      ],
      { type: 'image/png' },
    );

  it('keeps a person to 20 MB of images, a replaced image counting once, and to a number of uploads a minute', async () => {
    const me = await trader(backend);
    const bucket = me.client.storage.from('avatars');
    for (const name of ['1', '2', '3', '4'])
      expect((await bucket.upload(`${me.id}/${name}.png`, await noise())).error).toBeNull();
    // A replaced image counts once: the four are about 16.8 MB of the 20 MB.
    expect((await bucket.upload(`${me.id}/4.png`, await noise(), { upsert: true })).error).toBeNull();
    const over = await bucket.upload(`${me.id}/5.png`, await noise());
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
