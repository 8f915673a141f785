import { fireEvent, render, screen, within } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '@repex/shared-ui/ui';
import type { BookLevel } from '../data';
import { OrderBook, type BookPick } from './OrderBook';
import { ownLevels } from './ownLevels';

const LEVELS: BookLevel[] = [
  { side: 'buy', price: 9.5, amount: 10 },
  { side: 'buy', price: 9.9, amount: 5 },
  { side: 'sell', price: 10.4, amount: 7 },
  { side: 'sell', price: 10.1, amount: 3 },
];

function renderBook(levels: BookLevel[], onPick: (p: BookPick) => void = () => {}) {
  render(
    <ThemeProvider theme={theme}>
      <OrderBook levels={levels} onPick={onPick} />
    </ThemeProvider>,
  );
}

describe('OrderBook', () => {
  it('lists the best bids highest first and the best asks lowest first', () => {
    renderBook(LEVELS);
    const prices = (table: string) =>
      within(screen.getByRole('table', { name: table }))
        .getAllByRole('button')
        .map((b) => b.textContent);
    expect(prices('Bids')).toEqual(['$9.90', '$9.50']);
    expect(prices('Asks')).toEqual(['$10.10', '$10.40']);
  });

  it('a price is a button for the order that takes that level: an ask a buy, a bid a sell', () => {
    const picks: BookPick[] = [];
    renderBook(LEVELS, (p) => picks.push(p));
    fireEvent.click(screen.getByRole('button', { name: 'Buy at $10.10' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sell at $9.50' }));
    expect(picks).toEqual([
      { side: 'buy', price: 10.1 },
      { side: 'sell', price: 9.5 },
    ]);
    screen.getByText('Choose a price to place a limit order at it.');
  });

  it('while trading is halted the prices are only shown', () => {
    render(
      <ThemeProvider theme={theme}>
        <OrderBook levels={LEVELS} />
      </ThemeProvider>,
    );
    screen.getByText('$10.10');
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.queryByText('Choose a price to place a limit order at it.')).toBeNull();
  });

  it('an empty book says so on each side, with nothing to choose', () => {
    renderBook([]);
    screen.getByText('No bids yet.');
    screen.getByText('No asks yet.');
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.queryByText('Choose a price to place a limit order at it.')).toBeNull();
  });

  it("marks the user's own resting orders at their level, summed, and nothing else", () => {
    const mine = ownLevels([
      { side: 'sell', price: 10.1, amount: 2, filled: 0, status: 'open' },
      { side: 'buy', price: 9.9, amount: 4, filled: 1, status: 'open' },
      { side: 'buy', price: 9.9, amount: 1, filled: 0, status: 'open' },
      { side: 'buy', price: 9.5, amount: 9, filled: 0, status: 'pending' }, // a stop is not in the book
    ]);
    render(
      <ThemeProvider theme={theme}>
        <OrderBook levels={LEVELS} mine={mine} />
      </ThemeProvider>,
    );
    expect(screen.getAllByLabelText(/^yours:/).map((e) => e.getAttribute('aria-label'))).toEqual([
      'yours: 4',
      'yours: 2',
    ]);
  });
});
