import { fireEvent, render, screen } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '../theme';
import { Pager } from './Pager';

const pager = (total: number, page: number, onPage = jest.fn()) =>
  render(
    <ThemeProvider theme={theme}>
      <Pager total={total} page={page} pageSize={25} onPage={onPage} />
    </ThemeProvider>,
  );

describe('the pager', () => {
  it('is not there when one page holds every row', () => {
    const { container } = pager(25, 1);
    expect(container).toBeEmptyDOMElement();
  });

  it('says which tokens of how many are shown, and moves a page at a time within the pages', () => {
    const onPage = jest.fn();
    pager(60, 1, onPage);
    expect(screen.getByText(/^1–25 of 60$/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(onPage).toHaveBeenCalledWith(2);
  });

  it('shows what is left on the last page, and stops there', () => {
    const onPage = jest.fn();
    pager(60, 3, onPage);
    expect(screen.getByText(/^51–60 of 60$/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    fireEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(onPage).toHaveBeenCalledWith(2);
  });

  it('rounds an estimated total and says so, and follows the page after for Next', () => {
    const onPage = jest.fn();
    render(
      <ThemeProvider theme={theme}>
        <Pager total={33_602} page={2} pageSize={25} onPage={onPage} estimated more />
      </ThemeProvider>,
    );
    expect(screen.getByText(/^26–50 of about 33,600$/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(onPage).toHaveBeenCalledWith(3);
  });

  it('stops at the last page even when an estimate said there were more', () => {
    render(
      <ThemeProvider theme={theme}>
        <Pager total={33_602} page={2} pageSize={25} onPage={jest.fn()} estimated more={false} />
      </ThemeProvider>,
    );
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });

  it('without a total, says which rows the page holds and follows `more`', () => {
    render(
      <ThemeProvider theme={theme}>
        <Pager page={3} pageSize={25} shown={7} more={false} onPage={jest.fn()} />
      </ThemeProvider>,
    );
    expect(screen.getByText(/^51–57$/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeEnabled();
  });
});
