import type { Post, PostOrder, ReactionKind, Room } from '../../contracts/discussion';
import { supabase } from '../supabase';
import { refusal, unwrap } from '../data/useQuery';

/** The discussion's reads and calls (discussion.sql), typed by the database. */

/** Posts a page holds; the next page reads from where it ends. */
export const PAGE = 20;

/** A page of the token's discussion in a room, top posts with their replies. */
export const loadPosts = async (token: string, room: Room, order: PostOrder, offset: number): Promise<Post[]> =>
  unwrap(
    await supabase().rpc(
      'token_posts',
      { p_token: token, p_room: room, p_order: order, p_limit: PAGE, p_offset: offset },
      { get: true },
    ),
  );

/** The token's holders' room, when its person has opened one. */
export const loadRoom = async (token: string) =>
  unwrap(await supabase().from('holders_rooms').select('min_tokens').eq('token_id', token).maybeSingle());

/** Posts, or replies to `replyTo`; the post as the discussion shows it, or the refusal in words. */
export async function createPost(
  token: string,
  room: Room,
  body: string,
  replyTo: number | null,
): Promise<{ post: Post } | { error: string }> {
  const { data, error } = await supabase().rpc('create_post', {
    p_token: token,
    p_body: body,
    p_reply_to: replyTo,
    p_room: room,
  });
  return error ? { error: error.message } : { post: data };
}

/** Adds the reaction, or takes it back; whether it is there now. */
export const react = async (post: number, kind: ReactionKind) =>
  unwrap(await supabase().rpc('react_to_post', { p_post: post, p_kind: kind }));

export const reportPost = async (post: number, reason: string) =>
  refusal(await supabase().rpc('report_post', { p_post: post, p_reason: reason }));

export const openRoom = async (token: string, minTokens: number | null) =>
  refusal(await supabase().rpc('open_holders_room', { p_token: token, p_min_tokens: minTokens }));

export const hideReply = async (post: number) =>
  refusal(await supabase().rpc('hide_room_reply', { p_post: post, p_hidden: true }));
