export { theme, media, type Theme } from './theme';
export { GlobalStyle } from './GlobalStyle';
export * from './format';
export { configureSupabase, loadSupabase, supabase, hasStoredSession } from './supabase';
export { useAppStore, type AppState } from './store';
export { Toaster, TOAST_DURATION_MS, TOAST_SWIPE_THRESHOLD_PX } from './toast/Toaster';
export { toast, comingSoon, useToastStore, type ToastVariant } from './toast/toastStore';
export { Button, type ButtonVariant, type ButtonSize } from './primitives/Button';
export { Card, CardTitle, CardGrid } from './primitives/Card';
export { StatCard } from './primitives/StatCard';
export { Skeleton } from './primitives/Skeleton';
export { StackedTable, Table, TableScroll } from './primitives/Table';
export { Input, Select, Label, Textarea } from './primitives/Input';
export { Badge, VerifiedBadge, type BadgeVariant } from './primitives/Badge';
export { Avatar } from './primitives/Avatar';
export { Progress } from './primitives/Progress';
export { Tabs, TabsList, TabsTrigger, TabsContent } from './primitives/Tabs';
export { Dialog, DialogActions, Field, FormError } from './primitives/Dialog';
export { EmptyState, ErrorState, CenteredStatus, Page, PageTitle, Muted, Change } from './primitives/States';
export { signOutWithToast } from './signOut';
export { useQuery, unwrap, type QueryState } from './data/useQuery';
export {
  MARKET_TOKEN_COLUMNS,
  type MarketToken,
  type MyTrade,
  type PnlPoint,
  type Position,
  type Profile,
} from './data/types';
export { PersonCell } from './primitives/PersonCell';
export { SkeletonRows } from './primitives/SkeletonRows';
export { DataTable } from './primitives/DataTable';
export { useMarketEvents, useTableChanges } from './data/useMarketEvents';
export { toCsv, downloadCsv, type CsvValue } from './csv';
export { Logo } from './primitives/Logo';
export { useWatchlist } from './data/useWatchlist';
export { WatchStar } from './primitives/WatchStar';
export {
  parseRemoteManifest,
  type RemoteManifest,
  type RemoteRoute,
  type RouteAccess,
} from './contracts/remoteManifest';
