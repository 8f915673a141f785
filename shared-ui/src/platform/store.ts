import type { Session } from '@supabase/supabase-js';
import { create } from 'zustand';

export interface AppState {
  /** True until the stored session has been read (spec section 4: loading, then in or out). */
  authLoading: boolean;
  session: Session | null;
  setSession: (session: Session | null) => void;
}

/** The app-wide store, shared by the shell and every remote as one singleton. */
export const useAppStore = create<AppState>()((set) => ({
  authLoading: true,
  session: null,
  setSession: (session) => set({ session, authLoading: false }),
}));
