import styled from 'styled-components';

/** Fraud Detection's styles (Fraud.tsx is its view). */
export const Toolbar = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: center;
  gap: 8px;
  flex-wrap: wrap;
  margin-bottom: 12px;
`;
export const Evidence = styled.small`
  display: block;
  color: ${({ theme }) => theme.colors.muted};
  white-space: normal;
  max-width: 360px;
`;
