import { socialFigures } from './socialFigures';

const account = (followers: number, following: number, engagement_rate: number, status = 'connected') => ({
  platform: 'x',
  handle: 'h',
  status,
  phrase: 'repx-0',
  message: null,
  followers,
  following,
  engagement_rate,
  read_at: null,
});

describe('socialFigures', () => {
  it('sums followers and following, and weighs engagement by followers, over connected accounts only', () => {
    expect(socialFigures([account(1000, 10, 4), account(3000, 30, 2), account(99_999, 0, 50, 'failed')])).toEqual({
      connected: 2,
      followers: 4000,
      following: 40,
      engagement: 2.5,
    });
    expect(socialFigures([])).toEqual({ connected: 0, followers: 0, following: 0, engagement: 0 });
  });
});
