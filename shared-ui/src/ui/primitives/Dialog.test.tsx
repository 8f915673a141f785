import { useState } from 'react';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ThemeProvider } from 'styled-components';
import { theme } from '../theme';
import { Dialog } from './Dialog';

/** A page with a button that opens a dialog, as the screens use it (rendered while open). */
function Page({ onClose = () => undefined }: { onClose?: () => void }) {
  const [open, setOpen] = useState(false);
  const close = () => {
    onClose();
    setOpen(false);
  };
  return (
    <ThemeProvider theme={theme}>
      <main>
        <button onClick={() => setOpen(true)}>Withdraw</button>
      </main>
      <div data-toasts>
        <button>Dismiss toast</button>
      </div>
      {open && (
        <Dialog title="Withdraw" onClose={close}>
          <button data-dialog-close onClick={close}>
            Close
          </button>
          <input aria-label="Amount" />
          <button>Confirm</button>
        </Dialog>
      )}
    </ThemeProvider>
  );
}

/** Radix starts listening for presses outside, and gives focus back, a task after the change. */
const nextTask = () => act(() => new Promise((resolve) => setTimeout(resolve, 0)));

const openDialog = () => {
  const trigger = screen.getByRole('button', { name: 'Withdraw' });
  trigger.focus();
  fireEvent.click(trigger);
  return trigger;
};

describe('Dialog', () => {
  it('is a modal labelled by its title, in a portal, opening on its first field', () => {
    render(<Page />);
    openDialog();
    const dialog = screen.getByRole('dialog', { name: 'Withdraw' });
    expect(dialog.closest('main')).toBeNull();
    expect(screen.getByLabelText('Amount')).toHaveFocus();
  });

  it('closes on Escape and gives focus back to what opened it', async () => {
    const onClose = jest.fn();
    render(<Page onClose={onClose} />);
    const trigger = openDialog();
    fireEvent.keyDown(screen.getByLabelText('Amount'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(trigger).toHaveFocus());
  });

  it('hides the page behind it from assistive technology while open', () => {
    render(<Page />);
    openDialog();
    expect(screen.queryByRole('button', { name: 'Withdraw' })).toBeNull();
    expect(
      screen.getByRole('button', { name: 'Withdraw', hidden: true }).closest('[aria-hidden="true"]'),
    ).not.toBeNull();
  });

  it('stays open when a toast is used, and closes on a press outside', async () => {
    const onClose = jest.fn();
    render(<Page onClose={onClose} />);
    openDialog();
    await nextTask();
    fireEvent.pointerDown(screen.getByRole('button', { name: 'Dismiss toast', hidden: true }));
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.pointerDown(document.querySelector('main')!);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
