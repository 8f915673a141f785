import styled from 'styled-components';

/** The row over the dashboard's orders: which ones (open or past), and the view's own action. */
export const Bar = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: center;
  gap: 12px;
  flex-wrap: wrap;
  margin-bottom: 8px;
`;
