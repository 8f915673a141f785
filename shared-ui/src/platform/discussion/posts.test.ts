import type { Post } from '../../contracts/discussion';
import { mergePost, updatePost, withReaction } from './posts';

const post = (id: number, replyTo: number | null = null): Post => ({
  id,
  token_id: 't',
  room: 'public',
  reply_to: replyTo,
  body: `post ${id}`,
  created_at: '2026-11-29T07:00:00Z',
  hidden: null,
  author: { id: 'a', username: 'a', full_name: 'A', avatar_url: null, verified: false, reputation: null, trust: 1 },
  is_person: false,
  position: { then: 0, now: 0, badge: null, sold_since: false },
  reactions: { like: 0, insightful: 0, disagree: 0, mine: [] },
  replies: replyTo === null ? [] : null,
  reply_count: replyTo === null ? 0 : null,
});

describe('the discussion list', () => {
  it('puts a new top post first and a reply under its post, each once however often it arrives', () => {
    let list = [post(1)];
    list = mergePost(list, post(2));
    list = mergePost(list, post(2)); // the broadcast of one's own post, after the answer
    list = mergePost(list, post(3, 1));
    list = mergePost(list, post(3, 1));
    expect(list.map((p) => p.id)).toEqual([2, 1]);
    expect(list[1]!.replies!.map((r) => r.id)).toEqual([3]);
    expect(list[1]!.reply_count).toBe(1);
    // A reply to a post not on this page changes nothing.
    expect(mergePost(list, post(9, 42))).toEqual(list);
  });

  it('counts a reaction added and taken back, on a post or a reply', () => {
    let list = mergePost([post(1)], post(3, 1));
    list = updatePost(list, 3, (p) => withReaction(p, 'like', true));
    expect(list[0]!.replies![0]!.reactions).toEqual({ like: 1, insightful: 0, disagree: 0, mine: ['like'] });
    list = updatePost(list, 3, (p) => withReaction(p, 'like', false));
    expect(list[0]!.replies![0]!.reactions).toEqual({ like: 0, insightful: 0, disagree: 0, mine: [] });
    list = updatePost(list, 1, (p) => withReaction(p, 'insightful', true));
    expect(list[0]!.reactions.insightful).toBe(1);
  });
});
