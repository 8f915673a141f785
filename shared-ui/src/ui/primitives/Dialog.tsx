import { useEffect, useEffectEvent, useId, useRef, type InputHTMLAttributes, type ReactNode } from 'react';
import styled from 'styled-components';
import { media } from '../theme';
import { Input } from './Input';

const Backdrop = styled.div`
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
const Panel = styled.div`
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

/**
 * A modal: labelled by its title, closed by Escape or a click outside, focus moved into it on
 * open and given back to what had it on close.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const close = useEffectEvent(onClose);

  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const first = panel.current?.querySelector<HTMLElement>('input, select, textarea, button:not([data-dialog-close])');
    (first ?? panel.current)?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && close();
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus?.();
    };
  }, []);

  return (
    <Backdrop onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <Panel ref={panel} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <h2 id={titleId}>{title}</h2>
        {children}
      </Panel>
    </Backdrop>
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
