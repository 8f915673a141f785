import type { ReactNode } from 'react';
import styled from 'styled-components';
import { Muted, PageTitle } from './States';

const Header = styled.header`
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  align-items: flex-end;
  gap: 12px;
`;

/**
 * A page's title, the sentence under it, and what acts on the whole page (a button, a period
 * choice), which wraps under the title on a phone.
 */
export function PageHeader({ title, subtitle, actions }: { title: string; subtitle: ReactNode; actions?: ReactNode }) {
  return (
    <Header>
      <div>
        <PageTitle>{title}</PageTitle>
        <Muted>{subtitle}</Muted>
      </div>
      {actions}
    </Header>
  );
}
