import type { Post, ReactionKind } from '../../contracts/discussion';

/** How the discussion's list changes as posts arrive and reactions are toggled: pure, so tested alone. */

/** A post merged into the list: a top post first, a reply under its post, each once. */
export function mergePost(posts: Post[], p: Post): Post[] {
  if (p.reply_to === null)
    return posts.some((x) => x.id === p.id) ? posts : [{ ...p, replies: p.replies ?? [] }, ...posts];
  return posts.map((x) =>
    x.id !== p.reply_to || (x.replies ?? []).some((r) => r.id === p.id)
      ? x
      : { ...x, replies: [...(x.replies ?? []), p], reply_count: (x.reply_count ?? 0) + 1 },
  );
}

/** The post with this id, wherever it is, changed by `change`. */
export function updatePost(posts: Post[], id: number, change: (p: Post) => Post): Post[] {
  return posts.map((x) =>
    x.id === id
      ? change(x)
      : x.replies?.some((r) => r.id === id)
        ? { ...x, replies: x.replies.map((r) => (r.id === id ? change(r) : r)) }
        : x,
  );
}

/** A reaction added or taken back, as the counts show it. */
export function withReaction(p: Post, kind: ReactionKind, on: boolean): Post {
  const mine = on ? [...p.reactions.mine, kind] : p.reactions.mine.filter((k) => k !== kind);
  return { ...p, reactions: { ...p.reactions, [kind]: p.reactions[kind] + (on ? 1 : -1), mine } };
}
