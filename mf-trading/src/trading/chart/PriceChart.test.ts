import { describeChart } from './PriceChart';

const at = (hour: number, price: number | null) => ({
  bucket: `2026-11-25T${String(hour).padStart(2, '0')}:00:00Z`,
  price,
});

describe('describeChart', () => {
  it('says the first and last price and the range, for those who cannot see the chart', () => {
    expect(describeChart([at(10, 45.2), at(11, 44.1), at(12, 47.5), at(13, 46)])).toBe(
      'Hourly price chart: 4 points, from $45.20 to $46.00, low $44.10, high $47.50',
    );
  });

  it('leaves out the hours before a listing, and says when there is nothing to show', () => {
    expect(describeChart([at(10, null), at(11, 10)])).toBe(
      'Hourly price chart: 1 point, from $10.00 to $10.00, low $10.00, high $10.00',
    );
    expect(describeChart([])).toBe('Hourly price chart: no prices yet');
  });

  it('names its step: daily over a year or all time', () => {
    expect(describeChart([at(10, 45.2), at(11, 46)], 'Daily')).toBe(
      'Daily price chart: 2 points, from $45.20 to $46.00, low $45.20, high $46.00',
    );
  });
});
