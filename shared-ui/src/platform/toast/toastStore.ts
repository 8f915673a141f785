import { create } from 'zustand';

export type ToastVariant = 'default' | 'destructive';

interface ToastMessage {
  id: number;
  title: string;
  description?: string;
  variant: ToastVariant;
  open: boolean;
}

interface ToastState {
  toasts: ToastMessage[];
  show: (t: Omit<ToastMessage, 'id' | 'open' | 'variant'> & { variant?: ToastVariant }) => void;
  dismiss: (id: number) => void;
}

/** Spec section 4: only one toast is visible at a time; a new one replaces the last. */
const TOAST_LIMIT = 1;
let nextId = 1;

export const useToastStore = create<ToastState>()((set) => ({
  toasts: [],
  show: (t) =>
    set((state) => ({
      toasts: [{ ...t, id: nextId++, variant: t.variant ?? 'default', open: true }, ...state.toasts].slice(
        0,
        TOAST_LIMIT,
      ),
    })),
  dismiss: (id) => set((state) => ({ toasts: state.toasts.filter((x) => x.id !== id) })),
}));

/** Show a toast from anywhere (a component, an event handler, another remote). */
export function toast(t: { title: string; description?: string; variant?: ToastVariant }): void {
  useToastStore.getState().show(t);
}
