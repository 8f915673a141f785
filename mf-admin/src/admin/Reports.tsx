import { useState } from 'react';
import type { ReportedPost } from '@repex/shared-ui/contracts';
import { useQuery } from '@repex/shared-ui/platform';
import {
  Badge,
  Button,
  EmptyState,
  ErrorState,
  Muted,
  RowList,
  SkeletonRows,
  formatDate,
  formatTime,
} from '@repex/shared-ui/ui';
import { ActionDialog, ReasonField } from './dialogs/ActionDialog';
import { rpc } from './rpc';
import { Actions } from './Users.styles';

const when = (iso: string) => `${formatDate(iso)} ${formatTime(iso)}`;

/** Hides a reported post, or shows it again, with the reason the audit log keeps. */
function ModerateDialog({
  post,
  hide,
  onClose,
  onDone,
}: {
  post: ReportedPost;
  hide: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <ActionDialog
      title={hide ? 'Hide Post' : 'Restore Post'}
      submitLabel={hide ? 'Hide Post' : 'Restore Post'}
      destructive={hide}
      onClose={onClose}
      onDone={onDone}
      run={() => rpc(hide ? 'admin_hide_post' : 'admin_restore_post', { p_post: post.id, p_reason: reason })}
      success={{
        title: hide ? 'Post Hidden' : 'Post Restored',
        description: `${post.author.full_name}’s post on ${post.token_name}.`,
      }}
    >
      <Muted>&ldquo;{post.body}&rdquo;</Muted>
      <ReasonField id="moderation-reason" label="Reason (kept in the audit log)" value={reason} onChange={setReason} />
    </ActionDialog>
  );
}

/** The Reports queue: posts people reported since an admin last looked, most reported first. */
export function Reports({ version, onChanged }: { version: number; onChanged: () => void }) {
  const reports = useQuery(() => rpc('admin_post_reports', { p_limit: 100 }), [version]);
  const [acting, setActing] = useState<{ post: ReportedPost; hide: boolean }>();
  if (reports.error && !reports.data)
    return (
      <ErrorState title="The reports could not be loaded." message={reports.error.message} onRetry={reports.reload} />
    );
  if (!reports.data) return <SkeletonRows rows={3} columns={1} />;
  if (!reports.data.length) return <EmptyState>No reported posts. Posts people report appear here.</EmptyState>;
  return (
    <>
      <RowList aria-label="Reported posts">
        {reports.data.map((p) => (
          <li key={p.id}>
            <div>
              <strong>
                {p.author.full_name} on {p.token_name}{' '}
                {p.hidden ? (
                  <Badge $variant="down">Hidden ({p.hidden})</Badge>
                ) : (
                  <Badge $variant="secondary">Shown</Badge>
                )}{' '}
                <Badge $variant="outline">
                  {p.reports} report{p.reports === 1 ? '' : 's'}
                </Badge>
              </strong>
              <span style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{p.body}</span>
              {p.reasons.map((r) => (
                <small key={`${r.by}-${r.at}`}>
                  @{r.by}, {when(r.at)}: {r.reason}
                </small>
              ))}
            </div>
            <Actions>
              <Button $size="sm" $variant="destructive" onClick={() => setActing({ post: p, hide: true })}>
                Hide
              </Button>
              <Button $size="sm" $variant="outline" onClick={() => setActing({ post: p, hide: false })}>
                Restore
              </Button>
            </Actions>
          </li>
        ))}
      </RowList>
      {acting && (
        <ModerateDialog
          post={acting.post}
          hide={acting.hide}
          onClose={() => setActing(undefined)}
          onDone={() => {
            setActing(undefined);
            onChanged();
          }}
        />
      )}
    </>
  );
}
