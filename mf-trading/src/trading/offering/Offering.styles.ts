import styled from 'styled-components';

/** The offering panel's styles (OfferingPanel.tsx is its view). */
export const TitleRow = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
  h2 {
    margin-bottom: 0;
  }
  margin-bottom: 10px;
`;
export const Countdown = styled.p`
  margin: 0 0 4px;
  font-size: 20px;
  font-weight: 700;
  font-variant-numeric: tabular-nums;
`;
