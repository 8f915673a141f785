import { render, screen } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '@repex/shared-ui/ui';
import { loadScreen } from './registry';
import { RemoteScreen } from './RemoteScreen';

jest.mock('./registry', () => ({ loadScreen: jest.fn() }));
const load = loadScreen as jest.MockedFunction<typeof loadScreen>;

const show = () =>
  render(
    <ThemeProvider theme={theme}>
      <RemoteScreen remote="wallet" module="./Wallet" label="Wallet" />
    </ThemeProvider>,
  );

const chunkGone = () =>
  Object.assign(new Error('Loading chunk 198 failed.\n(missing: /198.0e4c6fe7.js)'), { name: 'ChunkLoadError' });

describe('RemoteScreen', () => {
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('says a screen whose files are gone was replaced by a new version, and offers a reload', async () => {
    load.mockRejectedValue(chunkGone());
    show();
    expect(await screen.findByText('A new version of the Wallet screen is out.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    expect(screen.queryByText(/not responding/)).toBeNull();
  });

  it('says the same of a part fetched later, such as a tab, whose file is gone', async () => {
    load.mockResolvedValue(() => {
      throw chunkGone();
    });
    show();
    expect(await screen.findByText('A new version of the Wallet screen is out.')).toBeInTheDocument();
  });

  it('says a remote that does not answer is not responding, with Retry', async () => {
    load.mockRejectedValue(new TypeError('Failed to fetch'));
    show();
    expect(await screen.findByText('The Wallet screen could not be loaded.')).toBeInTheDocument();
    expect(screen.getByText(/not responding/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
