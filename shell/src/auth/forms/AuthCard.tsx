import type { ReactNode } from 'react';
import { Link } from 'react-router';
import styled from 'styled-components';
import { Card, Logo } from '@repex/shared-ui/ui';

const Screen = styled.main`
  min-height: 100vh;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: 24px;
  padding: 32px 16px;
`;
const Box = styled(Card)`
  width: 100%;
  max-width: 420px;
  h1 {
    margin: 0 0 4px;
    font-size: 24px;
  }
  p.sub {
    margin: 0 0 20px;
    color: ${({ theme }) => theme.colors.muted};
  }
`;

export function AuthCard({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <Screen>
      <Link to="/">
        <Logo />
      </Link>
      <Box>
        <h1>{title}</h1>
        <p className="sub">{subtitle}</p>
        {children}
      </Box>
    </Screen>
  );
}
