import {
  appCodeError,
  validateNewPassword,
  validateRecoveryCode,
  validateRecoveryEmail,
  validateSignIn,
  validateSignUp,
} from './validation';

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
  it('password recovery: an email to send the code to, the code (digits, spaces allowed), a new password', () => {
    expect(validateRecoveryEmail({ email: '' })).toEqual({ email: 'Email is required.' });
    expect(validateRecoveryEmail({ email: 'a@b.co' })).toEqual({});
    expect(validateRecoveryCode({ code: ' ' })).toEqual({ code: 'Enter the code from the email.' });
    expect(validateRecoveryCode({ code: '1234abcd' })).toEqual({ code: 'The code is digits only.' });
    expect(validateRecoveryCode({ code: '1234 5678' })).toEqual({});
    expect(validateNewPassword({ password: '' }, 6)).toEqual({ password: 'Password is required.' });
    expect(validateNewPassword({ password: '12345' }, 6)).toEqual({
      password: 'Password must be at least 6 characters.',
    });
    expect(validateNewPassword({ password: '123456' }, 6)).toEqual({});
  });

  it('asks for a code from the authenticator app, digits only, spaces allowed', () => {
    expect(appCodeError(' ')).toBe('Enter the code from your authenticator app.');
    expect(appCodeError('12a456')).toBe('The code is digits only.');
    expect(appCodeError('123 456')).toBeUndefined();
  });
});
