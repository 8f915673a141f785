import styled from 'styled-components';
import { Card, Muted, media } from '@repex/shared-ui/ui';

export const Header = styled.div`
  display: flex;
  align-items: center;
  gap: 16px;
  flex-wrap: wrap;
  h1 {
    margin: 0;
    font-size: 26px;
    display: flex;
    align-items: center;
    gap: 8px;
  }
  ${media.phone} {
    gap: 10px 12px;
    > :first-child {
      width: 40px;
      height: 40px;
      font-size: 15px;
    }
    h1 {
      font-size: 20px;
    }
  }
`;
export const PriceBlock = styled.div`
  margin-left: auto;
  text-align: right;
  strong {
    display: block;
    font-size: 28px;
  }
  ${media.phone} {
    margin-left: 0;
    flex-basis: 100%;
    text-align: left;
  }
`;
export const Watching = styled(Muted)`
  display: block;
  font-size: 13px;
`;
/**
 * Wide: the chart and the book on the left, the order panel beside them. Narrow: one column in
 * which the order panel follows the chart, so a phone user who tapped Trade reaches it without
 * scrolling past the book. The DOM follows the narrow order, so focus and reading order match.
 */
export const Layout = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 1fr) 360px;
  grid-template-rows: auto 1fr;
  grid-template-areas: 'chart side' 'book side';
  gap: 16px;
  align-items: start;
  ${media.tablet} {
    grid-template-columns: minmax(0, 1fr);
    grid-template-rows: none;
    grid-template-areas: 'chart' 'side' 'book';
  }
`;
/**
 * The token's figures and how its score is made: under the header when wide; on a phone, after the
 * chart, the order panel and the book, so that the first screen is the price, the chart and Buy.
 */
export const Detail = styled.div`
  display: flex;
  flex-direction: column;
  gap: 24px;
  ${media.phone} {
    order: 2;
  }
`;
/** On a phone, Buy and Sell stay at the bottom of the screen, as on Robinhood and Coinbase. */
export const PhoneTradeBar = styled.div`
  display: none;
  ${media.phone} {
    display: grid;
    grid-template-columns: 1fr 1fr;
    gap: 8px;
    position: fixed;
    left: 0;
    right: 0;
    bottom: 0;
    z-index: 20;
    padding: 10px 16px calc(10px + env(safe-area-inset-bottom));
    background: ${({ theme }) => theme.colors.surface};
    border-top: 1px solid ${({ theme }) => theme.colors.border};
  }
`;
/** Room at the page's end for the fixed bar, so it covers nothing there. */
export const PhoneTradeBarSpace = styled.div`
  display: none;
  ${media.phone} {
    display: block;
    order: 3;
    height: 40px;
  }
`;
export const ChartCard = styled(Card)`
  grid-area: chart;
`;
export const BookCard = styled(Card)`
  grid-area: book;
`;
export const SideColumn = styled.div`
  grid-area: side;
  display: flex;
  flex-direction: column;
  gap: 16px;
  min-width: 0;
`;
export const Info = styled.dl`
  margin: 0;
  display: grid;
  grid-template-columns: 1fr auto;
  gap: 10px;
  dt {
    color: ${({ theme }) => theme.colors.muted};
  }
  dd {
    margin: 0;
    font-weight: 600;
    text-align: right;
  }
`;
/**
 * The chart's choices: Line or Candles, then the line's ranges or the candles' intervals. The two
 * groups share a row when they fit and take one each on a phone; neither wraps inside.
 */
export const ChartBar = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 4px 12px;
  margin: -4px 0 12px;
  > div {
    display: flex;
    gap: 4px;
  }
`;
export const ChartChoiceButton = styled.button.attrs({ type: 'button' })<{ $active: boolean }>`
  min-width: 40px;
  height: 30px;
  padding: 0 10px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.sm};
  font-size: 13px;
  font-weight: 600;
  cursor: pointer;
  color: ${({ $active, theme }) => ($active ? '#fff' : theme.colors.muted)};
  background: ${({ $active, theme }) => ($active ? theme.colors.primary : 'transparent')};
`;
