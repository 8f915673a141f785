import type { Factor, Session } from '@supabase/supabase-js';
import { authenticatorApps, secondStepDue } from './secondStep';

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

test('the turned-on apps are the verified factors, oldest first, an unnamed one called what it is', () => {
  const factor = (id: string, status: 'verified' | 'unverified', friendly_name?: string) =>
    ({
      id,
      status,
      friendly_name,
      factor_type: 'totp',
      created_at: `2026-11-2${id}T10:00:00Z`,
      updated_at: '',
    }) as Factor;
  expect(authenticatorApps(undefined)).toEqual([]);
  expect(
    authenticatorApps([factor('1', 'verified', 'Phone'), factor('2', 'unverified', 'Tablet'), factor('3', 'verified')]),
  ).toEqual([
    { id: '1', name: 'Phone', addedAt: '2026-11-21T10:00:00Z' },
    { id: '3', name: 'Authenticator app', addedAt: '2026-11-23T10:00:00Z' },
  ]);
});
