import * as ToastPrimitive from '@radix-ui/react-toast';
import styled, { css, keyframes } from 'styled-components';
import { media } from '../../ui/theme';
import { useToastStore } from './toastStore';

/** Spec section 4: auto-dismiss after 5000 ms, swipe right past 50 px, F8 focuses the region. */
export const TOAST_DURATION_MS = 5000;
export const TOAST_SWIPE_THRESHOLD_PX = 50;

const slideIn = keyframes`from { transform: translateX(calc(100% + 24px)); } to { transform: translateX(0); }`;
const swipeOut = keyframes`from { transform: translateX(var(--radix-toast-swipe-end-x)); } to { transform: translateX(calc(100% + 24px)); }`;

const Viewport = styled(ToastPrimitive.Viewport)`
  position: fixed;
  /* At the foot of the screen, clear of the navigation bar (Sign Out) and of the order panel's
     Buy/Sell toggle at the top of its column. */
  bottom: 0;
  right: 0;
  z-index: 1000;
  display: flex;
  flex-direction: column;
  gap: 8px;
  width: 400px;
  max-width: 100vw;
  margin: 0;
  padding: 20px;
  list-style: none;
  outline: none;
  /* A modal dialog makes the page inert to the pointer; toasts stay usable above it (Dialog lets
     a click on them through without closing). */
  pointer-events: auto;
  ${media.phone} {
    width: 100vw;
    padding: 12px;
    /* The foot of a phone's screen holds a dialog's buttons (a bottom sheet) and the trading
       screen's Buy/Sell bar: the toast goes to the top there, off them. */
    body:has([role='dialog']) &,
    body:has([data-trade-bar]) & {
      top: 0;
      bottom: auto;
    }
  }
`;

const Root = styled(ToastPrimitive.Root)<{ $variant: 'default' | 'destructive' }>`
  display: grid;
  grid-template-columns: 1fr auto;
  gap: 4px 12px;
  padding: 14px 16px;
  border-radius: ${({ theme }) => theme.radius.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.text};
  box-shadow: 0 12px 32px rgba(0, 0, 0, 0.45);
  ${({ $variant, theme }) =>
    $variant === 'destructive' &&
    css`
      background: ${theme.colors.destructive};
      border-color: ${theme.colors.destructive};
      color: #fff;
    `}
  &[data-state='open'] {
    animation: ${slideIn} 150ms ease-out;
  }
  &[data-swipe='move'] {
    transform: translateX(var(--radix-toast-swipe-move-x));
  }
  &[data-swipe='cancel'] {
    transform: translateX(0);
    transition: transform 200ms ease-out;
  }
  &[data-swipe='end'] {
    animation: ${swipeOut} 100ms ease-out;
  }
`;

const Title = styled(ToastPrimitive.Title)`
  grid-column: 1;
  font-weight: 600;
`;

const Description = styled(ToastPrimitive.Description)`
  grid-column: 1;
  font-size: 14px;
  opacity: 0.9;
`;

const Close = styled(ToastPrimitive.Close)`
  grid-column: 2;
  grid-row: 1 / span 2;
  align-self: start;
  background: none;
  border: 0;
  color: inherit;
  opacity: 0.7;
  cursor: pointer;
  font-size: 18px;
  line-height: 1;
  &:hover {
    opacity: 1;
  }
`;

/** Mounted once, by the shell. Radix gives the focus, swipe and F8 hotkey handling. */
export function Toaster() {
  const { toasts, dismiss } = useToastStore();
  return (
    <ToastPrimitive.Provider
      duration={TOAST_DURATION_MS}
      swipeDirection="right"
      swipeThreshold={TOAST_SWIPE_THRESHOLD_PX}
      label="Notification"
    >
      {toasts.map((t) => (
        <Root
          key={t.id}
          $variant={t.variant}
          data-variant={t.variant}
          data-testid="toast"
          onOpenChange={(open) => {
            if (!open) dismiss(t.id);
          }}
        >
          <Title data-testid="toast-title">{t.title}</Title>
          {t.description && <Description data-testid="toast-description">{t.description}</Description>}
          <Close aria-label="Close">×</Close>
        </Root>
      ))}
      <Viewport hotkey={['F8']} data-toasts />
    </ToastPrimitive.Provider>
  );
}
