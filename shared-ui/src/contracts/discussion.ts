/** A post as the discussion shows it (discussion.sql's post_json). */
export interface Post {
  id: number;
  token_id: string;
  room: 'public' | 'holders';
  reply_to: number | null;
  /** Plain text: shown as text, links as links, never as HTML. */
  body: string;
  created_at: string;
  /** Only its author and admins see a hidden post, and why: reported, admin, owner. */
  hidden: 'reported' | 'admin' | 'owner' | null;
  author: {
    id: string;
    username: string;
    full_name: string;
    avatar_url: string | null;
    verified: boolean;
    /** The author's own token's reputation score, when they have a token. */
    reputation: number | null;
    /** The author's trust weight, 0 to 1 (reputation.sql). */
    trust: number;
  };
  /** Whether the author is the token's own person. */
  is_person: boolean;
  position: {
    then: number;
    now: number;
    badge: 'Whale' | 'Large holder' | 'Holder' | null;
    sold_since: boolean;
  };
  reactions: { like: number; insightful: number; disagree: number; mine: ReactionKind[] };
  /** A top post's replies, oldest first (null on a reply). */
  replies: Post[] | null;
  reply_count: number | null;
}

export type ReactionKind = 'like' | 'insightful' | 'disagree';

/** A reported post in the admin's queue. */
export interface ReportedPost extends Post {
  token_name: string;
  hidden_reason: string | null;
  reports: number;
  last_report: string;
  reasons: { reason: string; by: string; at: string }[];
}

export type Room = 'public' | 'holders';
export type PostOrder = 'top' | 'new';

/** A token's discussion as a screen shows it (the platform's useDiscussion), and what a reader does there. */
export interface DiscussionState {
  room: Room;
  setRoom: (room: Room) => void;
  order: PostOrder;
  setOrder: (order: PostOrder) => void;
  posts: Post[];
  /** Whether another page may follow. */
  more: boolean;
  loadMore: () => Promise<void>;
  /** Another room or order is being read. */
  loading: boolean;
  /** The database's refusal or failure, in its words. */
  error: string | undefined;
  reload: () => void;
  /** The holders' room's minimum, or null when the person has not opened one. */
  minTokens: number | null;
  /** Posts, or replies to a post; the refusal in words, or null. */
  send: (body: string, replyTo: number | null) => Promise<string | null>;
  toggle: (p: Post, kind: ReactionKind) => Promise<void>;
  report: (p: Post, reason: string) => Promise<string | null>;
  hide: (p: Post) => Promise<void>;
  openRoom: (minTokens: number | null) => Promise<string | null>;
}
