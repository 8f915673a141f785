import type { Backend } from '../server/index';
import { ENGINES, backendFor } from './harness/backends';
import { DEMO, signedIn } from './harness/clients';
import { searchPattern } from '../mf-market/src/market/query';

describe.each(ENGINES)("the market's search on %s", (engine) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await backendFor(engine)();
  });
  afterAll(() => backend.close());

  /** What the market screen asks for a search box's text: a page of the view and the count. */
  const search = async (text: string) => {
    const c = await signedIn(backend.url, DEMO);
    const pattern = searchPattern(text)!;
    const [page, counted] = await Promise.all([
      c.from('market_tokens').select('username').like('search_text', pattern).order('username'),
      c.from('market_tokens').select('id', { count: 'exact', head: true }).like('search_text', pattern),
    ]);
    expect(page.error ?? counted.error).toBeNull();
    expect(counted.count).toBe(page.data!.length);
    return page.data!.map((r) => r.username);
  };

  it('finds a part of a name, a username or a category, whatever its case', async () => {
    expect(await search('CHEN')).toEqual(['sarahchen']);
    expect(await search('priyadesigns')).toEqual(['priyadesigns']);
    expect(await search('designer')).toEqual(['priyadesigns']);
    expect(await search('  Sarah C ')).toEqual(['sarahchen']);
  });

  it('never matches across two parts, and takes commas and parentheses as text', async () => {
    // "Sarah Chen" then "sarahchen": the end of the name and the start of the username.
    expect(await search('chen sarah')).toEqual([]);
    expect(await search('chensarah')).toEqual([]);
    expect(await search('chen, (x)')).toEqual([]);
  });

  it('follows a token renamed or moved to another category', async () => {
    await backend.db.query(`update tokens set name = 'Zed Quill', category = 'Writer' where username = 'marcusj'`);
    expect(await search('zed q')).toEqual(['marcusj']);
    expect(await search('writer')).toEqual(['marcusj']);
  });
});
