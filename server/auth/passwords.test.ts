/** @jest-environment node */
import bcrypt from 'bcryptjs';
import { BCRYPT_COST, DUMMY_HASH, PasswordHasher } from './passwords';

describe('DUMMY_HASH', () => {
  it('costs what a real password check costs: a bcrypt hash at BCRYPT_COST', () => {
    expect(bcrypt.getRounds(DUMMY_HASH)).toBe(BCRYPT_COST);
    expect(bcrypt.compareSync('not-a-real-password', DUMMY_HASH)).toBe(true);
  });
});

describe('PasswordHasher', () => {
  let hasher: PasswordHasher;
  afterEach(() => hasher.close());

  it('hashes at BCRYPT_COST unless told otherwise, and checks a hash at the cost it was made', async () => {
    hasher = new PasswordHasher();
    const hash = await hasher.hash('correct horse');
    expect(bcrypt.getRounds(hash)).toBe(BCRYPT_COST);
    await expect(hasher.compare('correct horse', hash)).resolves.toBe(true);
    await expect(hasher.compare('wrong horse', hash)).resolves.toBe(false);
    await expect(hasher.compareNone('not-a-real-password')).resolves.toBe(false);
  });

  it("at a lower cost, new hashes take it, older ones keep theirs, and no account's check is still false", async () => {
    hasher = new PasswordHasher(4);
    const hash = await hasher.hash('correct horse');
    expect(bcrypt.getRounds(hash)).toBe(4);
    await expect(hasher.compare('correct horse', hash)).resolves.toBe(true);
    await expect(hasher.compare('correct horse', bcrypt.hashSync('correct horse', BCRYPT_COST))).resolves.toBe(true);
    await expect(hasher.compareNone('not-a-real-password')).resolves.toBe(false);
  });
});
