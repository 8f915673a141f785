import { useCallback, useEffect, useState } from 'react';
import type { DiscussionState, Post, PostOrder, ReactionKind, Room } from '../../contracts/discussion';
import { useDiscussionFeed } from '../data/feeds';
import { useQuery } from '../data/useQuery';
import { toast } from '../toast/toastStore';
import { PAGE, createPost, hideReply, loadPosts, loadRoom, openRoom, react, reportPost } from './data';
import { mergePost, updatePost, withReaction } from './posts';

/**
 * A token's discussion: a room's posts in an order, page by page, kept live (each new public post
 * arrives whole; a room's post is read, as only its holders may), and what a reader does there.
 */
export function useDiscussion(token: string): DiscussionState {
  const [room, setRoom] = useState<Room>('public');
  const [order, setOrder] = useState<PostOrder>('top');
  const [posts, setPosts] = useState<Post[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string>();
  // Which room and order the list holds: another is loading while they differ.
  const key = `${token}|${room}|${order}`;
  const [loaded, setLoaded] = useState<string>();
  const holders = useQuery(() => loadRoom(token), [token]);

  const reload = useCallback(() => {
    let live = true;
    loadPosts(token, room, order, 0)
      .then((page) => {
        if (!live) return;
        setPosts(page);
        setMore(page.length === PAGE);
        setError(undefined);
      })
      .catch((e: Error) => live && setError(e.message))
      .finally(() => live && setLoaded(`${token}|${room}|${order}`));
    return () => {
      live = false;
    };
  }, [token, room, order]);
  useEffect(() => reload(), [reload]);
  const loading = loaded !== key;

  const loadMore = async () => {
    const page = await loadPosts(token, room, order, posts.length);
    setPosts((ps) => page.reduce((acc, p) => (acc.some((x) => x.id === p.id) ? acc : [...acc, p]), ps));
    setMore(page.length === PAGE);
  };

  useDiscussionFeed<Post>(
    room === 'public' ? `discussion:${token}` : error ? null : `holders:${token}`,
    (arrived) => (room === 'public' ? setPosts((ps) => arrived.reduce(mergePost, ps)) : reload()),
    reload,
  );

  const send = async (body: string, replyTo: number | null): Promise<string | null> => {
    const made = await createPost(token, room, body, replyTo);
    if ('error' in made) return made.error;
    setPosts((ps) => mergePost(ps, made.post));
    return null;
  };
  const toggle = async (p: Post, kind: ReactionKind) => {
    try {
      const on = await react(p.id, kind);
      setPosts((ps) => updatePost(ps, p.id, (x) => withReaction(x, kind, on)));
    } catch (e) {
      toast({ title: 'Not Saved', description: (e as Error).message, variant: 'destructive' });
    }
  };
  const report = async (p: Post, reason: string) => {
    const refused = await reportPost(p.id, reason);
    if (!refused) toast({ title: 'Post Reported', description: 'Thank you. An admin will review it.' });
    return refused;
  };
  const hide = async (p: Post) => {
    const refused = await hideReply(p.id);
    if (refused) toast({ title: 'Not Hidden', description: refused, variant: 'destructive' });
    else setPosts((ps) => ps.map((x) => ({ ...x, replies: x.replies?.filter((r) => r.id !== p.id) ?? null })));
  };

  const open = async (minTokens: number | null) => {
    const refused = await openRoom(token, minTokens);
    if (!refused) holders.reload();
    return refused;
  };

  return {
    room,
    setRoom,
    order,
    setOrder,
    posts,
    more,
    loadMore,
    loading,
    error,
    reload,
    minTokens: holders.data?.min_tokens ?? null,
    send,
    toggle,
    report,
    hide,
    openRoom: open,
  };
}
