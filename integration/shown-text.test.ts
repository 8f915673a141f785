import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { trader } from './harness/market';

const HIDDEN = {
  'a right-to-left override': 'Alex\u202eareviR',
  'a zero-width space': 'Sarah\u200b Chen',
  'a direction mark': 'Sarah Chen\u200e',
  'an isolate': 'a\u2066b\u2069',
  'a byte-order mark': '\ufeffAlex',
  'a control character': 'Alex\u0007',
};

describe.each(ENGINES)('names and bios others read, on %s', (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  it('a profile refuses hidden characters and a blank name, in words, and keeps what it had', async () => {
    const me = await trader(backend);
    const profile = me.client.from('profiles');
    const read = async () =>
      (await profile.select('full_name, location, bio').eq('id', me.id).single()).data as Record<string, string>;
    const before = await read();
    const refusal = async (patch: Record<string, string>) =>
      (await profile.update(patch).eq('id', me.id)).error?.message;

    for (const [what, text] of Object.entries(HIDDEN)) {
      expect([what, await refusal({ full_name: text })]).toEqual([
        what,
        'A name cannot hold control characters or invisible formatting characters (such as a right-to-left override).',
      ]);
      expect([what, await refusal({ location: text })]).toEqual([
        what,
        'A location cannot hold control characters or invisible formatting characters (such as a right-to-left override).',
      ]);
      expect([what, await refusal({ bio: text })]).toEqual([
        what,
        'A bio cannot hold control characters (line breaks aside) or invisible formatting characters (such as a right-to-left override).',
      ]);
    }
    expect(await refusal({ full_name: '   ' })).toBe('A name needs 1 to 80 characters.');
    expect(await refusal({ full_name: 'x'.repeat(81) })).toBe('A name needs 1 to 80 characters.');
    expect(await refusal({ location: 'x'.repeat(81) })).toBe('A location has at most 80 characters.');
    expect(await refusal({ bio: 'x'.repeat(501) })).toBe('A bio has at most 500 characters.');
    expect(await read()).toEqual(before);

    // Accents, other scripts, emoji (joiners included) and a bio's line breaks are plain text.
    const plain = { full_name: 'Zoë 李 👩‍💻', location: 'São Paulo', bio: 'First line.\nSecond line.' };
    expect((await profile.update(plain).eq('id', me.id)).error).toBeNull();
    expect(await read()).toEqual(plain);
  });

  it('a token application refuses hidden characters in its display name and bio', async () => {
    const me = await trader(backend);
    const apply = (display: string, bio = '') =>
      me.client.rpc('apply_for_token', { p_display_name: display, p_category: 'Designer', p_bio: bio });
    for (const [what, text] of Object.entries(HIDDEN)) {
      expect([what, (await apply(text)).error?.message]).toEqual([
        what,
        'The display name cannot hold control characters or invisible formatting characters (such as a right-to-left override).',
      ]);
      expect([what, (await apply('Plain Name', text)).error?.message]).toEqual([
        what,
        'The bio cannot hold control characters (line breaks aside) or invisible formatting characters (such as a right-to-left override).',
      ]);
    }
    const applications = async () =>
      (await me.client.from('token_applications').select('*', { count: 'exact', head: true })).count;
    expect(await applications()).toBe(0);
    const ok = await apply('Plain Name', 'Designs type.\nDraws maps.');
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({ display_name: 'Plain Name', status: 'pending' });
    expect(await applications()).toBe(1);
  });
});
