/**
 * The social-account provider interface: what the reputation analysis needs from a platform. The
 * worker (worker.ts) asks a provider to prove that a person controls a handle, then reads the
 * account's public profile and recent posts; analysis.ts turns them into components, and the
 * database keeps only those, their evidence and a few cited posts (supabase/schemas/social.sql).
 *
 * To plug in a real platform, implement this interface: `prove` by reading the bio through the
 * platform's API (or, with OAuth through Supabase's identity linking, by the linked identity), and
 * `profile` and `posts` with the platform's keys, from an Edge Function or this server. The
 * database and the screens do not change.
 */
export type Platform = 'x' | 'instagram' | 'youtube' | 'tiktok' | 'linkedin';

export interface SocialProfile {
  handle: string;
  followers: number;
  following: number;
  /** The day the account was made (YYYY-MM-DD). */
  createdOn: string;
  /** The platform's own verified mark. */
  verified: boolean;
  /** Daily follower counts, oldest first, where the platform exposes them (for bursts of new followers). */
  followerHistory?: { day: string; followers: number }[];
}

export interface SocialPost {
  text: string;
  /** ISO time. */
  postedAt: string;
  likes: number;
  replies: number;
  reposts: number;
  views?: number;
}

type ProofOutcome = { proven: true } | { proven: false; message: string };

export interface SocialProvider {
  readonly name: string;
  /** Whether the person controls the handle: here, whether the one-time phrase is in its bio. */
  prove(platform: Platform, handle: string, phrase: string): Promise<ProofOutcome>;
  /** The account's public profile, or null when there is no such account. */
  profile(platform: Platform, handle: string): Promise<SocialProfile | null>;
  /** Its most recent public posts, newest first, at most `limit`. */
  posts(platform: Platform, handle: string, limit: number): Promise<SocialPost[]>;
}
