import { Link } from 'react-router';
import styled from 'styled-components';
import type { FirstSteps as Steps } from '@repex/shared-ui/contracts';
import { useQuery } from '@repex/shared-ui/platform';
import { Card, CardTitle, Muted, media } from '@repex/shared-ui/ui';
import { loadFirstSteps } from './data';

const List = styled.ol`
  margin: 0;
  padding: 0;
  list-style: none;
  display: grid;
  grid-template-columns: repeat(4, minmax(0, 1fr));
  gap: 8px;
  margin-top: 10px;
  a {
    color: ${({ theme }) => theme.colors.accent};
    font-weight: 600;
  }
  ${media.phone} {
    grid-template-columns: minmax(0, 1fr);
  }
  li {
    padding: 10px 12px;
    border-radius: ${({ theme }) => theme.radius.sm};
    border: 1px solid ${({ theme }) => theme.colors.border};
  }
  li[data-done='true'] {
    color: ${({ theme }) => theme.colors.muted};
    text-decoration: line-through;
  }
`;

/** Each step, where it is taken, and the flag that says it is done. */
const STEPS: { key: keyof Omit<Steps, 'new'>; label: string; to: string }[] = [
  { key: 'deposited', label: 'Fund your wallet', to: '/wallet?action=deposit' },
  { key: 'traded', label: 'Make your first trade', to: '/market' },
  { key: 'connected', label: 'Connect your social accounts', to: '/profile?open=social' },
  { key: 'applied', label: 'Apply for your own token', to: '/profile' },
];

/** A new person's first steps on the dashboard, until each is done. Not shown to anyone else. */
export function FirstSteps() {
  const steps = useQuery(loadFirstSteps, []).data;
  if (!steps?.new) return null;
  const left = STEPS.filter((s) => !steps[s.key]);
  if (left.length === 0) return null;
  return (
    <Card aria-label="First steps" data-testid="first-steps">
      <CardTitle>Get started</CardTitle>
      <Muted>
        {STEPS.length - left.length} of {STEPS.length} done.
      </Muted>
      <List>
        {STEPS.map((s) => (
          <li key={s.key} data-done={steps[s.key]}>
            {steps[s.key] ? `✓ ${s.label}` : <Link to={s.to}>{s.label} →</Link>}
          </li>
        ))}
      </List>
    </Card>
  );
}
