import bcrypt from 'bcryptjs';
import { DUMMY_HASH } from './context';
import { BCRYPT_COST } from './passwords';

describe('DUMMY_HASH', () => {
  it('costs what a real password check costs: a bcrypt hash at BCRYPT_COST', () => {
    expect(bcrypt.getRounds(DUMMY_HASH)).toBe(BCRYPT_COST);
    expect(bcrypt.compareSync('not-a-real-password', DUMMY_HASH)).toBe(true);
  });
});
