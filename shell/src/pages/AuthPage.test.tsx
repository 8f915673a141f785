import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { ThemeProvider } from 'styled-components';
import { theme } from '@repex/shared-ui/ui';
import { signIn } from '../auth/data';
import { AuthPage } from './AuthPage';

jest.mock('../auth/data', () => ({ signIn: jest.fn(), signUp: jest.fn() }));
const refused = signIn as jest.MockedFunction<typeof signIn>;

/** Where the link led, and the email it carried. */
function CodePage() {
  const state = useLocation().state as { email?: string } | null;
  return <p>code page for {state?.email}</p>;
}

const show = () =>
  render(
    <ThemeProvider theme={theme}>
      <MemoryRouter initialEntries={['/auth']}>
        <Routes>
          <Route path="/auth" element={<AuthPage passwordMinLength={6} />} />
          <Route path="/auth/code" element={<CodePage />} />
        </Routes>
      </MemoryRouter>
    </ThemeProvider>,
  );

async function signInAs(email: string) {
  fireEvent.change(screen.getByLabelText('Email'), { target: { value: email } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'some-password' } });
  // The form's answer (its state after the refusal) lands within the act.
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
  });
}

describe('the sign-in form', () => {
  it("offers the owner a mailed code when the account's lockout refuses the password", async () => {
    refused.mockResolvedValue({
      data: { user: null, session: null },
      error: Object.assign(new Error('Too many failed sign-in attempts for this account. Try again later.'), {
        code: 'over_request_rate_limit',
        status: 429,
      }),
    } as unknown as Awaited<ReturnType<typeof signIn>>);
    show();
    await signInAs('owner@repx.dev');
    fireEvent.click(await screen.findByRole('link', { name: 'Sign in with a code we email you' }));
    expect(await screen.findByText('code page for owner@repx.dev')).toBeInTheDocument();
  });

  it('does not offer it for a wrong password alone', async () => {
    refused.mockResolvedValue({
      data: { user: null, session: null },
      error: Object.assign(new Error('Invalid login credentials'), { code: 'invalid_credentials', status: 400 }),
    } as unknown as Awaited<ReturnType<typeof signIn>>);
    show();
    await signInAs('owner@repx.dev');
    expect(screen.queryByRole('link', { name: 'Sign in with a code we email you' })).toBeNull();
  });
});
