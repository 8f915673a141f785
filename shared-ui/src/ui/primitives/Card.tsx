import styled from 'styled-components';
import { media } from '../theme';

export const Card = styled.section`
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.lg};
  padding: 20px;
  min-width: 0;
  ${media.phone} {
    padding: 16px;
  }
`;

export const CardTitle = styled.h2`
  margin: 0 0 12px;
  font-size: 17px;
  font-weight: 600;
`;

/** A responsive grid of cards: four across on desktop, two on tablets and phones. */
export const CardGrid = styled.div<{ $columns?: number }>`
  display: grid;
  grid-template-columns: repeat(${({ $columns = 4 }) => $columns}, minmax(0, 1fr));
  gap: 16px;
  ${media.tablet} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
    /* An odd card out takes the last row whole rather than leave half of it empty. */
    & > :last-child:nth-child(odd) {
      grid-column: 1 / -1;
    }
  }
  ${media.phone} {
    gap: 10px;
  }
`;
