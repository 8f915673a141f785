import type { Session } from '@supabase/supabase-js';
import { secondStepDue } from './secondStep';

const token = (claims: object) =>
  ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'signature'].join('.');

const session = (aal: string, factors: { status: 'verified' | 'unverified' }[] | undefined) =>
  ({ access_token: token({ aal, sub: 'u' }), user: { id: 'u', factors } }) as unknown as Session;

test('the code step is due only for a user with a verified app whose token is not aal2', () => {
  expect(secondStepDue(null)).toBe(false);
  expect(secondStepDue(session('aal1', undefined))).toBe(false);
  expect(secondStepDue(session('aal1', [{ status: 'unverified' }]))).toBe(false);
  expect(secondStepDue(session('aal1', [{ status: 'verified' }]))).toBe(true);
  expect(secondStepDue(session('aal2', [{ status: 'verified' }]))).toBe(false);
  // A token it cannot read counts as not raised.
  expect(secondStepDue({ ...session('aal2', [{ status: 'verified' }]), access_token: 'garbage' })).toBe(true);
});
