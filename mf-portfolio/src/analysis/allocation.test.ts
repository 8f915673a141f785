import { allocation } from './allocation';

const positions = [
  { name: 'Sarah Chen', category: 'Tech', value: 300 },
  { name: 'Alex Rivera', category: 'Music', value: 100 },
  { name: 'Priya Patel', category: 'Tech', value: 100 },
];

describe('the allocation', () => {
  it('shares the positions by token, largest first', () => {
    expect(allocation(positions, 'token')).toEqual([
      { label: 'Sarah Chen', value: 300, share: 0.6 },
      { label: 'Alex Rivera', value: 100, share: 0.2 },
      { label: 'Priya Patel', value: 100, share: 0.2 },
    ]);
  });
  it('adds up tokens of one category', () => {
    expect(allocation(positions, 'category')).toEqual([
      { label: 'Tech', value: 400, share: 0.8 },
      { label: 'Music', value: 100, share: 0.2 },
    ]);
  });
  it('has nothing to share without positions', () => {
    expect(allocation([], 'token')).toEqual([]);
  });
});
