import styled, { css } from 'styled-components';
import { media } from '../theme';

/** Tables scroll sideways inside their card on narrow screens instead of breaking the layout. */
export const TableScroll = styled.div`
  width: 100%;
  overflow-x: auto;
`;

export const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: 14px;
  th,
  td {
    padding: 12px 10px;
    text-align: left;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
    white-space: nowrap;
  }
  th {
    color: ${({ theme }) => theme.colors.muted};
    font-weight: 500;
    font-size: 13px;
  }
  tbody tr:hover {
    background: ${({ theme }) => theme.colors.surfaceRaised};
  }
  td.num,
  th.num {
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
`;

/** Rows as cards: each cell flows on, labelled by its data-label; a cell with class "full" takes a line. */
const rowsAsCards = css`
  thead {
    display: none;
  }
  tr {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px 14px;
    padding: 12px 0;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
  td {
    border: 0;
    padding: 0;
    white-space: normal;
    text-align: left;
  }
  td.num {
    text-align: left;
  }
  td.full {
    flex-basis: 100%;
  }
  td[data-label]::before {
    content: attr(data-label) ': ';
    color: ${({ theme }) => theme.colors.muted};
  }
`;

/** A table that becomes a list of cards on a phone, so every row's content and actions stay in view. */
export const StackedTable = styled(Table)`
  ${media.phone} {
    ${rowsAsCards}
  }
`;

/** A table that is a list of cards at every width: for a card too narrow for columns (a side column). */
export const CardRowsTable = styled(Table)`
  ${rowsAsCards}
`;
