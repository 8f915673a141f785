import { act, render, screen } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '../../ui/theme';
import { Toaster } from './Toaster';
import { toast, useToastStore } from './toastStore';

function renderToaster() {
  return render(
    <ThemeProvider theme={theme}>
      <Toaster />
    </ThemeProvider>,
  );
}

beforeEach(() => useToastStore.setState({ toasts: [] }));

describe('toasts (spec sections 4 and 8)', () => {
  it('shows one toast at a time: a new one replaces the last', () => {
    renderToaster();
    act(() => toast({ title: 'First' }));
    act(() => toast({ title: 'Second', description: 'Later', variant: 'destructive' }));
    expect(screen.getAllByTestId('toast')).toHaveLength(1);
    expect(screen.getByTestId('toast-title')).toHaveTextContent('Second');
    expect(screen.getByTestId('toast')).toHaveAttribute('data-variant', 'destructive');
  });

  it('dismisses itself after 5000 ms', () => {
    jest.useFakeTimers();
    renderToaster();
    act(() => toast({ title: 'Short-lived' }));
    act(() => jest.advanceTimersByTime(4900));
    expect(screen.queryByTestId('toast')).toBeInTheDocument();
    act(() => jest.advanceTimersByTime(200));
    act(() => jest.runOnlyPendingTimers());
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();
    jest.useRealTimers();
  });
});
