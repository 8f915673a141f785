import styled from 'styled-components';

/** Tables scroll sideways inside their card on narrow screens instead of breaking the layout. */
export const TableScroll = styled.div`
  width: 100%;
  overflow-x: auto;
`;

export const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: 14px;
  th, td {
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
  tbody tr:hover { background: ${({ theme }) => theme.colors.surfaceRaised}; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
`;
