import { useState } from 'react';
import styled from 'styled-components';
import type { Post, ReactionKind } from '../../contracts/discussion';
import { Avatar } from '../primitives/Avatar';
import { Badge } from '../primitives/Badge';
import { Button } from '../primitives/Button';
import { Muted } from '../primitives/States';
import { formatDate, formatInteger, formatTime } from '../format';
import { Composer } from './Composer';
import { PostBody } from './PostBody';
import { ReportDialog } from './ReportDialog';

const Item = styled.article<{ $reply?: boolean }>`
  display: grid;
  grid-template-columns: auto 1fr;
  gap: 10px;
  padding: ${({ $reply }) => ($reply ? '10px 0 0' : '14px 0')};
  border-top: ${({ $reply, theme }) => ($reply ? 'none' : `1px solid ${theme.colors.border}`)};
`;
const Head = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 6px;
  font-size: 14px;
`;
const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 4px;
  margin-top: 6px;
`;
const Replies = styled.div`
  margin-top: 4px;
  padding-left: 12px;
  border-left: 2px solid ${({ theme }) => theme.colors.border};
`;

const REACTIONS: [ReactionKind, string][] = [
  ['like', 'Like'],
  ['insightful', 'Insightful'],
  ['disagree', 'Disagree'],
];

/** Who wrote it, as the discussion weighs them: the token's person, their position then and now, reputation and trust. */
function Author({ p }: { p: Post }) {
  return (
    <Head>
      <strong>{p.author.full_name}</strong>
      <Muted>@{p.author.username}</Muted>
      {p.is_person && <Badge $variant="verified">The person</Badge>}
      {p.position.badge && (
        <Badge
          $variant="secondary"
          title={`Holds ${formatInteger(p.position.now)}; held ${formatInteger(p.position.then)} when posting`}
        >
          {p.position.badge}
        </Badge>
      )}
      {p.position.sold_since && (
        <Badge
          $variant="down"
          title={`Held ${formatInteger(p.position.then)} when posting, ${formatInteger(p.position.now)} now`}
        >
          Sold since
        </Badge>
      )}
      {p.author.reputation !== null && <Muted>Rep {p.author.reputation.toFixed(1)}</Muted>}
      <Muted>Trust {Math.round(p.author.trust * 100)}%</Muted>
      <Muted>
        {formatDate(p.created_at)} {formatTime(p.created_at)}
      </Muted>
      {p.hidden && <Badge $variant="down">Hidden: only you see it</Badge>}
    </Head>
  );
}

/** One post with its reactions and, for a top post, its replies and a reply box. */
export function PostItem({
  post: p,
  me,
  personHides,
  onReact,
  onReply,
  onReport,
  onHide,
}: {
  post: Post;
  me: string | undefined;
  /** The token's person, in their holders' room: may hide replies. */
  personHides: boolean;
  onReact: (p: Post, kind: ReactionKind) => void;
  onReply: (body: string, to: number) => Promise<string | null>;
  onReport: (p: Post, reason: string) => Promise<string | null>;
  onHide: (p: Post) => void;
}) {
  const [replying, setReplying] = useState(false);
  const [reporting, setReporting] = useState(false);
  const own = p.author.id === me;
  const isReply = p.reply_to !== null;
  return (
    <Item $reply={isReply} aria-label={`Post by ${p.author.full_name}`} data-testid="post">
      <Avatar name={p.author.full_name} src={p.author.avatar_url} size={isReply ? 28 : 36} />
      <div>
        <Author p={p} />
        <PostBody text={p.body} />
        <Actions>
          {REACTIONS.map(([kind, label]) => (
            <Button
              key={kind}
              $variant={p.reactions.mine.includes(kind) ? 'secondary' : 'ghost'}
              $size="sm"
              aria-pressed={p.reactions.mine.includes(kind)}
              aria-label={`${label} (${p.reactions[kind]})`}
              disabled={own}
              onClick={() => onReact(p, kind)}
            >
              {label} {formatInteger(p.reactions[kind])}
            </Button>
          ))}
          {!isReply && (
            <Button $variant="ghost" $size="sm" aria-expanded={replying} onClick={() => setReplying((r) => !r)}>
              Reply{p.reply_count ? ` (${formatInteger(p.reply_count)})` : ''}
            </Button>
          )}
          {!own && (
            <Button $variant="ghost" $size="sm" onClick={() => setReporting(true)}>
              Report
            </Button>
          )}
          {personHides && isReply && !own && (
            <Button $variant="ghost" $size="sm" onClick={() => onHide(p)}>
              Hide
            </Button>
          )}
        </Actions>
        {!isReply && (p.replies?.length || replying) ? (
          <Replies>
            {p.replies?.map((r) => (
              <PostItem
                key={r.id}
                post={r}
                me={me}
                personHides={personHides}
                onReact={onReact}
                onReply={onReply}
                onReport={onReport}
                onHide={onHide}
              />
            ))}
            {replying && (
              <Composer
                compact
                label={`Reply to ${p.author.full_name}`}
                placeholder="Write a reply"
                submitLabel="Reply"
                send={(body) => onReply(body, p.id)}
                onDone={() => setReplying(false)}
              />
            )}
          </Replies>
        ) : null}
      </div>
      {reporting && <ReportDialog post={p} report={onReport} onClose={() => setReporting(false)} />}
    </Item>
  );
}
