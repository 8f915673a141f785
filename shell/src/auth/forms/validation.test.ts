import { validateSignIn, validateSignUp } from './validation';

describe('auth form validation (spec section 5)', () => {
  it('requires email and password to sign in', () => {
    expect(validateSignIn({ email: '', password: '' })).toEqual({
      email: 'Email is required.',
      password: 'Password is required.',
    });
  });
  it('rejects a value that is not an email', () => {
    expect(validateSignIn({ email: 'not-an-email', password: 'x' }).email).toBe('Enter a valid email address.');
    expect(validateSignIn({ email: 'a@b.co', password: 'x' })).toEqual({});
  });
  it("requires a username and the auth server's minimum password length to sign up", () => {
    expect(validateSignUp({ username: ' ', email: 'a@b.co', password: '12345' }, 6)).toEqual({
      username: 'Username is required.',
      password: 'Password must be at least 6 characters.',
    });
    expect(validateSignUp({ username: 'ann', email: 'a@b.co', password: '123456' }, 6)).toEqual({});
    expect(validateSignUp({ username: 'ann', email: 'a@b.co', password: '123456' }, 8).password).toBe(
      'Password must be at least 8 characters.',
    );
  });
});
