/**
 * The UI kit: theme, primitives, number formats, and the few pieces that more than one remote
 * shows (a remote never imports another). No state of its own, so it is not shared at run time:
 * every package bundles the parts it uses, and a change here reaches the browser by rebuilding
 * the packages that show it, without the shell.
 * It never imports the platform by a relative path (ESLint refuses it): a copy of the store or
 * the Supabase client bundled into a remote would be a second instance.
 */
export { theme, media, type Theme } from './theme';
export { GlobalStyle } from './GlobalStyle';
export * from './format';
export { toCsv, downloadCsv, downloadFile, money as csvMoney, type CsvValue } from './csv';
export { deviceName } from './deviceName';
export { Button, type ButtonVariant, type ButtonSize } from './primitives/Button';
export { Card, CardTitle, CardGrid } from './primitives/Card';
export { StatCard } from './primitives/StatCard';
export { StatRow } from './primitives/StatRow';
export { Skeleton } from './primitives/Skeleton';
export { SkeletonRows } from './primitives/SkeletonRows';
export { CardRowsTable, StackedTable, Table, TableScroll } from './primitives/Table';
export { RowList } from './primitives/RowList';
export { DataTable } from './primitives/DataTable';
export { Input, Select, Label, Textarea } from './primitives/Input';
export { Badge, HaltedBadge, SideBadge, TokenPrice, VerifiedBadge, type BadgeVariant } from './primitives/Badge';
export { DateTime } from './primitives/DateTime';
export { Avatar } from './primitives/Avatar';
export { PersonCell, type Person } from './primitives/PersonCell';
export { Pager } from './primitives/Pager';
export { Progress } from './primitives/Progress';
export { Tabs, TabsList, TabsTrigger, TabsContent } from './primitives/Tabs';
export { Dialog, DialogActions, Field, FormError, TextField } from './primitives/Dialog';
export { FormDialog } from './primitives/FormDialog';
export { AppChoice } from './primitives/AppChoice';
export { RecentSignInFields } from './primitives/RecentSignInFields';
export { EmptyState, ErrorState, CenteredStatus, Page, PageTitle, Muted, Change } from './primitives/States';
export { PageHeader } from './primitives/PageHeader';
export { Logo } from './primitives/Logo';
export { WatchStar } from './primitives/WatchStar';
export { useChart, MONEY_SCALE, POINTS_SCALE, type Charts } from './chart/useChart';
export { EditOrderDialog, type NewTerms, type RestingOrder } from './orders/EditOrderDialog';
export { describeResult } from './orders/orderResult';
export { orderTerms, type ListedOrder } from './orders/orderTerms';
export { OrderPrice } from './orders/OrderPrice';
export { PriceAlertList, type SaveAlert } from './alerts/PriceAlertList';
export { NewAlertForm } from './alerts/NewAlertForm';
export { alertCondition, type ListedAlert } from './alerts/alertText';
export { SocialAnalysisView } from './social/SocialAnalysisView';
export { DiscussionView } from './discussion/DiscussionView';
