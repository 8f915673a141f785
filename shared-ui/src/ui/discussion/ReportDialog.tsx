import { useState } from 'react';
import type { Post } from '../../contracts/discussion';
import { FormDialog } from '../primitives/FormDialog';
import { Muted } from '../primitives/States';
import { TextField } from '../primitives/Dialog';

/** Reports a post with a reason; several trusted reports hide it until an admin reviews it. */
export function ReportDialog({
  post,
  report,
  onClose,
}: {
  post: Post;
  report: (p: Post, reason: string) => Promise<string | null>;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <FormDialog
      title="Report Post"
      submitLabel="Report"
      busyLabel="Reporting…"
      destructive
      send={() => report(post, reason)}
      onClose={onClose}
    >
      <Muted>
        Tell us what is wrong with {post.author.full_name}&rsquo;s post: spam, a scam, abuse. Several reports from
        trusted accounts hide it until an admin reviews it.
      </Muted>
      <TextField id="report-reason" label="Reason" value={reason} onValue={setReason} autoFocus />
    </FormDialog>
  );
}
