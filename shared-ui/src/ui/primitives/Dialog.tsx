import * as RadixDialog from '@radix-ui/react-dialog';
import { useState, type InputHTMLAttributes, type ReactNode } from 'react';
import styled from 'styled-components';
import { media } from '../theme';
import { Input } from './Input';

const Overlay = styled(RadixDialog.Overlay)`
  position: fixed;
  inset: 0;
  z-index: 50;
  display: flex;
  align-items: center;
  justify-content: center;
  padding: 16px;
  background: rgba(5, 8, 15, 0.72);
  ${media.phone} {
    align-items: flex-end;
    padding: 0;
  }
`;
const Panel = styled(RadixDialog.Content)`
  width: min(460px, 100%);
  max-height: calc(100vh - 32px);
  overflow-y: auto;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radius.lg};
  padding: 20px;
  display: flex;
  flex-direction: column;
  gap: 14px;
  outline: none;
  ${media.phone} {
    border-radius: 16px 16px 0 0;
    max-height: 92vh;
  }
  h2 {
    margin: 0;
    font-size: 19px;
  }
`;
export const DialogActions = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: 8px;
  flex-wrap: wrap;
  ${media.phone} {
    > * {
      flex: 1;
    }
  }
`;

/** Where the toasts are (the platform's Toaster): a dialog lets them be used without closing. */
const TOASTS = '[data-toasts]';

/**
 * A modal on Radix's Dialog: in a portal, labelled by its title, focus held inside it while open
 * and given back to what had it on close, the page behind it neither scrolled nor read out, and
 * closed by Escape or a click outside. It opens on its first field or action (a Close marked
 * data-dialog-close is passed over), so a form can be typed into at once.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  // What had focus when the dialog opened. Radix gives focus back to a Dialog.Trigger; these dialogs
  // are opened by the screens' own buttons, so the dialog remembers it.
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  return (
    <RadixDialog.Root open onOpenChange={(open) => !open && onClose()}>
      <RadixDialog.Portal>
        <Overlay>
          <Panel
            aria-describedby={undefined}
            onOpenAutoFocus={(e) => {
              const first = (e.currentTarget as HTMLElement).querySelector<HTMLElement>(
                'input, select, textarea, button:not([data-dialog-close])',
              );
              if (!first) return;
              e.preventDefault();
              first.focus();
            }}
            onCloseAutoFocus={(e) => {
              e.preventDefault();
              opener?.focus?.();
            }}
            onInteractOutside={(e) => {
              if ((e.target as Element | null)?.closest?.(TOASTS)) e.preventDefault();
            }}
          >
            <RadixDialog.Title>{title}</RadixDialog.Title>
            {children}
          </Panel>
        </Overlay>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

const FieldBox = styled.div`
  display: flex;
  flex-direction: column;
  gap: 6px;
  label {
    font-size: 13px;
    font-weight: 500;
    color: ${({ theme }) => theme.colors.muted};
  }
  small {
    color: ${({ theme }) => theme.colors.muted};
    font-size: 12px;
  }
`;

/** A labelled form control with an optional hint under it. */
export function Field({
  label,
  htmlFor,
  hint,
  children,
}: {
  label: string;
  htmlFor: string;
  hint?: ReactNode;
  children: ReactNode;
}) {
  return (
    <FieldBox>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      {hint && <small>{hint}</small>}
    </FieldBox>
  );
}

/**
 * The common case of a Field: a text input bound to a string. `onValue` gets the typed text;
 * every other input attribute (type, inputMode, autoComplete, placeholder...) passes through.
 */
export function TextField({
  id,
  label,
  hint,
  onValue,
  ...input
}: { id: string; label: string; hint?: ReactNode; value: string; onValue: (value: string) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onChange'
>) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      <Input id={id} {...input} onChange={(e) => onValue(e.target.value)} />
    </Field>
  );
}

/** The server's refusal, shown in the form that caused it. */
export const FormError = styled.p.attrs({ role: 'alert' })`
  margin: 0;
  padding: 10px 12px;
  border-radius: 8px;
  background: rgba(239, 68, 68, 0.12);
  color: #fca5a5;
  font-size: 14px;
`;
