import { act, fireEvent, render, screen } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '../theme';
import { FormDialog } from './FormDialog';

function open(send: () => Promise<string | null>, onClose = jest.fn(), stayOpen = false) {
  render(
    <ThemeProvider theme={theme}>
      <FormDialog
        title="Deposit Funds"
        submitLabel="Deposit"
        busyLabel="Depositing..."
        stayOpen={stayOpen}
        send={send}
        onClose={onClose}
      >
        <input aria-label="Amount" defaultValue="12" />
      </FormDialog>
    </ThemeProvider>,
  );
  return onClose;
}

describe('FormDialog', () => {
  it('shows the refusal in place and stays open with what was typed', async () => {
    const onClose = open(async () => 'Deposits start at $10.00.');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Deposit' })));
    expect(screen.getByRole('alert')).toHaveTextContent('Deposits start at $10.00.');
    expect(screen.getByLabelText('Amount')).toHaveValue('12');
    expect(onClose).not.toHaveBeenCalled();
  });

  it('is busy while sending, then closes when done', async () => {
    let finish: (value: null) => void = () => undefined;
    const onClose = open(() => new Promise((resolve) => (finish = resolve)));
    await act(async () => fireEvent.submit(screen.getByRole('form', { name: 'Deposit Funds' })));
    expect(screen.getByRole('button', { name: 'Depositing...' })).toBeDisabled();
    await act(async () => finish(null));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('with stayOpen, leaves a done step open to its owner', async () => {
    const send = jest.fn(async () => null);
    const onClose = open(send, jest.fn(), true);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Deposit' })));
    expect(send).toHaveBeenCalledTimes(1);
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows a thrown error as a refusal', async () => {
    open(async () => {
      throw new Error('Only an administrator may do this.');
    });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Deposit' })));
    expect(screen.getByRole('alert')).toHaveTextContent('Only an administrator may do this.');
    expect(screen.getByRole('button', { name: 'Deposit' })).toBeEnabled();
  });
});
