/**
 * The platform: the one Supabase client, the app store, toasts, sign-out and the data hooks.
 * Each holds state that must exist once in the browser, so this entry is a Module Federation
 * singleton provided by the shell; remotes carry no copy of it.
 */
export { configureSupabase, isEstimate, loadSupabase, supabase } from './supabase';
export { hasStoredSession } from './storedSession';
export { useAppStore, type AppState } from './store';
export { Toaster, TOAST_DURATION_MS, TOAST_SWIPE_THRESHOLD_PX } from './toast/Toaster';
export { toast, useToastStore, type ToastVariant } from './toast/toastStore';
export { signOutWithToast } from './signOut';
export { cancelOrder, cancelAllOrders, replaceOrder } from './orders';
export { codeMessage } from './codeMessage';
export { secondStepDue, authenticatorApps, enterAppCode, signInAgain, type AuthenticatorApp } from './secondStep';
export { useRecentSignIn, type RecentSignIn } from './useRecentSignIn';
export { useQuery, unwrap, refusal, type QueryState } from './data/useQuery';
export { usePausedQuery } from './data/usePausedQuery';
export { FirstRead } from './data/firstRead';
export { useTableChanges } from './data/useTableChanges';
export { followTopic, useAccountFeed, useDiscussionFeed, useIndexFeed, useMarketFeed, useSoon } from './data/feeds';
export { useWatchlist } from './data/useWatchlist';
export { useExchangeSettings, type ExchangeSettings } from './data/useExchangeSettings';
export { usePriceAlerts, describeAlert, type AlertKind, type PriceAlert } from './data/usePriceAlerts';
export { useNow } from './useNow';
export { useDiscussion } from './discussion/useDiscussion';
