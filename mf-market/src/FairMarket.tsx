import { Link } from 'react-router';
import styled from 'styled-components';
import { Card, Page, PageHeader } from '@repex/shared-ui/ui';

const Prose = styled.div`
  max-width: 760px;
  line-height: 1.6;
  h2 {
    font-size: 18px;
    margin: 20px 0 6px;
  }
  h2:first-child {
    margin-top: 0;
  }
  p,
  li {
    color: ${({ theme }) => theme.colors.muted};
  }
  ul {
    padding-left: 20px;
  }
  a {
    color: ${({ theme }) => theme.colors.accent};
    text-decoration: underline;
  }
`;

/** /fair-market: how RepX keeps its market fair, in plain words; the integrity panel links here. */
export default function FairMarket() {
  return (
    <Page data-remote="market">
      <PageHeader
        title="How We Keep the Market Fair"
        subtitle="What RepX does against manipulation, and what you can check yourself."
      />
      <Card>
        <Prose>
          <h2>Every order meets the same rules</h2>
          <ul>
            <li>
              No one trades with themselves: an order that would meet its owner&rsquo;s own resting order cancels that
              one instead.
            </li>
            <li>
              A market order trades only within a band around the last price, so one order cannot sweep a thin book to
              any price.
            </li>
            <li>
              A sudden move pauses the market instead of crashing it: a trade more than 20% away from the price of five
              minutes before (the admin sets the band) stops continuous trading for a short <em>volatility auction</em>.
              Everyone sees the price it would open at, has time to answer, and then all orders that cross trade at one
              price.
            </li>
            <li>
              An admin can halt trading in a token, with a reason everyone reads on its trading screen, while the facts
              are checked.
            </li>
            <li>A new person&rsquo;s founder tokens vest over time: they cannot sell them all on the first day.</li>
          </ul>
          <h2>Surveillance, reviewed by people</h2>
          <p>
            RepX scans the trades and orders for wash trading, rings of accounts trading among themselves, spoofing
            (orders placed to be cancelled), a high share of cancelled orders, concentrated holdings and bursts from new
            accounts. Each pattern it finds becomes an alert with its evidence, the orders and trades that make it,
            which an admin reviews. Trades between accounts in an alert carry no weight in the trust the reputation
            score is built on.
          </p>
          <h2>Trust, not numbers of accounts</h2>
          <p>
            Reputation and the discussion weigh each account by the trust the trading graph gives it: money spread over
            many fresh accounts buys neither a higher score nor a post at the top. Several trusted reports hide a post
            until an admin looks.
          </p>
          <h2>Each token&rsquo;s integrity, in public</h2>
          <p>
            Every trading screen has a <strong>Market Integrity</strong> panel, from RepX&rsquo;s own records over the
            last 30 days: whether trading was halted or paused for a volatility auction, what share of the volume was
            between accounts an admin confirmed were manipulating the market, how many orders were cancelled unfilled
            for each that traded, how much of the supply the ten largest holders hold, and what the person has vested
            and sold. Its label, <em>Nothing unusual</em>, <em>Worth a look</em> or <em>Manipulation found</em>, applies
            the same thresholds to every token.
          </p>
          <p>
            <Link to="/market">Back to the market</Link>
          </p>
        </Prose>
      </Card>
    </Page>
  );
}
