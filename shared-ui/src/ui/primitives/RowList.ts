import styled from 'styled-components';

/**
 * A list of items, each a row: what it is on the left (a bold name over muted `small` lines), its
 * action on the right, rows divided by a rule. Sessions and bank accounts use it.
 */
export const RowList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  li {
    display: flex;
    justify-content: space-between;
    align-items: center;
    gap: 12px;
    padding: 12px 0;
    border-top: 1px solid ${({ theme }) => theme.colors.border};
    overflow-wrap: anywhere;
  }
  li:first-child {
    border-top: 0;
  }
  strong {
    display: block;
    margin-bottom: 2px;
  }
  small {
    display: block;
    color: ${({ theme }) => theme.colors.muted};
    font-size: 13px;
  }
`;
