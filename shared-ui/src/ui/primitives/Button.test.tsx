import { Link, MemoryRouter } from 'react-router';
import { render, screen } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '../theme';
import { Button, type ButtonSize, type ButtonVariant } from './Button';

const VARIANTS: ButtonVariant[] = ['default', 'destructive', 'outline', 'secondary', 'ghost', 'link'];
const SIZES: ButtonSize[] = ['default', 'sm', 'lg', 'icon'];

describe('Button', () => {
  it('renders every variant and size as a plain button (never a form submit by default)', () => {
    render(
      <ThemeProvider theme={theme}>
        {VARIANTS.flatMap((v) =>
          SIZES.map((s) => <Button key={`${v}-${s}`} $variant={v} $size={s}>{`${v}-${s}`}</Button>),
        )}
      </ThemeProvider>,
    );
    expect(screen.getAllByRole('button')).toHaveLength(VARIANTS.length * SIZES.length);
    expect(screen.getByText('link-sm')).toHaveAttribute('type', 'button');
  });

  it('renders as one link, without a button inside it or a type, when given as (a router link, as the screens use it)', () => {
    render(
      <MemoryRouter>
        <ThemeProvider theme={theme}>
          <Button as={Link} to="/market" $size="sm">
            Trade
          </Button>
        </ThemeProvider>
      </MemoryRouter>,
    );
    const link = screen.getByRole('link', { name: 'Trade' });
    expect(link).toHaveAttribute('href', '/market');
    expect(link).not.toHaveAttribute('type');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('gives each variant its own look', () => {
    render(
      <ThemeProvider theme={theme}>
        <Button $variant="default">a</Button>
        <Button $variant="destructive">b</Button>
      </ThemeProvider>,
    );
    const a = getComputedStyle(screen.getByText('a')).backgroundColor;
    const b = getComputedStyle(screen.getByText('b')).backgroundColor;
    expect(a).not.toBe(b);
  });
});
