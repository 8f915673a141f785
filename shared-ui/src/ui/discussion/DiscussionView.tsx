import { useState } from 'react';
import styled from 'styled-components';
import { Button } from '../primitives/Button';
import { Card, CardTitle } from '../primitives/Card';
import { ErrorState, Muted } from '../primitives/States';
import { Skeleton } from '../primitives/Skeleton';
import { formatInteger } from '../format';
import { Composer } from './Composer';
import { PostItem } from './PostItem';
import { RoomDialog } from './RoomDialog';
import type { DiscussionState } from '../../contracts/discussion';

const Head = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 8px;
  margin-bottom: 12px;
`;
const Toggle = styled.div`
  display: inline-flex;
  gap: 4px;
  flex-wrap: wrap;
`;

/**
 * A token's Discussion: posts and replies weighed by their authors' trust and position, the
 * person's holders' room, live as people post.
 */
export function DiscussionView({
  d,
  tokenName,
  isPerson,
  me,
}: {
  /** The platform's useDiscussion, handed in: the kit imports nothing of the platform. */
  d: DiscussionState;
  tokenName: string;
  isPerson: boolean;
  me: string | undefined;
}) {
  const [roomDialog, setRoomDialog] = useState(false);
  const min = d.minTokens;
  const inHolders = d.room === 'holders';
  return (
    <Card aria-label="Discussion">
      <Head>
        <CardTitle style={{ margin: 0 }}>Discussion</CardTitle>
        <Toggle role="group" aria-label="Room">
          <Button
            $size="sm"
            $variant={inHolders ? 'ghost' : 'secondary'}
            aria-pressed={!inHolders}
            onClick={() => d.setRoom('public')}
          >
            Public
          </Button>
          {min !== null && (
            <Button
              $size="sm"
              $variant={inHolders ? 'secondary' : 'ghost'}
              aria-pressed={inHolders}
              onClick={() => d.setRoom('holders')}
            >
              Holders&rsquo; room
            </Button>
          )}
          {isPerson && (
            <Button $size="sm" $variant="outline" onClick={() => setRoomDialog(true)}>
              {min === null ? 'Open holders’ room' : 'Room settings'}
            </Button>
          )}
        </Toggle>
        <Toggle role="group" aria-label="Order">
          {(['top', 'new'] as const).map((o) => (
            <Button
              key={o}
              $size="sm"
              $variant={d.order === o ? 'secondary' : 'ghost'}
              aria-pressed={d.order === o}
              onClick={() => d.setOrder(o)}
            >
              {o === 'top' ? 'Top' : 'New'}
            </Button>
          ))}
        </Toggle>
      </Head>
      {inHolders && min !== null && (
        <Muted as="p">
          For holders of at least {formatInteger(min)} {tokenName} tokens.
        </Muted>
      )}
      {d.error ? (
        <ErrorState
          title={inHolders ? 'The holders’ room is closed to you.' : 'The discussion could not be loaded.'}
          message={d.error}
          onRetry={inHolders ? undefined : d.reload}
        />
      ) : (
        <>
          <Composer
            label={inHolders ? 'Post in the holders’ room' : 'Post in the discussion'}
            placeholder={isPerson ? 'Tell your holders what is new' : `What do you think of ${tokenName}?`}
            submitLabel="Post"
            send={(body) => d.send(body, null)}
          />
          {d.loading && d.posts.length === 0 ? (
            <Skeleton $height="120px" />
          ) : d.posts.length === 0 ? (
            <Muted as="p">No posts yet. Start the conversation.</Muted>
          ) : (
            d.posts.map((p) => (
              <PostItem
                key={p.id}
                post={p}
                me={me}
                personHides={isPerson && inHolders}
                onReact={(p, kind) => void d.toggle(p, kind)}
                onReply={d.send}
                onReport={d.report}
                onHide={(p) => void d.hide(p)}
              />
            ))
          )}
          {d.more && (
            <Button $variant="outline" $size="sm" onClick={() => void d.loadMore()}>
              Show more
            </Button>
          )}
        </>
      )}
      {roomDialog && <RoomDialog current={min} open={d.openRoom} onClose={() => setRoomDialog(false)} />}
    </Card>
  );
}
