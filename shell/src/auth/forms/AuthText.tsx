import styled from 'styled-components';

/** The links under an auth form (send a new code, use another email, back to sign in). */
export const Links = styled.p`
  display: flex;
  justify-content: space-between;
  gap: 12px;
  flex-wrap: wrap;
  margin: 16px 0 0;
  font-size: 14px;
  a,
  button {
    color: ${({ theme }) => theme.colors.accent};
  }
  button {
    border: 0;
    padding: 0;
    background: none;
    font: inherit;
    cursor: pointer;
  }
`;

/** Where the mailed code went, above its field. */
export const Sent = styled.p`
  margin: 0 0 16px;
  overflow-wrap: anywhere;
`;
