/** Rows of the admin's database functions (see supabase/schemas). */
export interface Stats {
  total_users: number;
  active_users: number;
  suspended_users: number;
  fraud_alerts: number;
  daily_volume: number;
  revenue_24h: number;
  trades_24h: number;
  pending_applications: number;
}

export interface AdminUser {
  id: string;
  username: string;
  full_name: string;
  email: string;
  role: 'user' | 'admin';
  status: 'active' | 'suspended';
  verified: boolean;
  joined: string;
  trades_30d: number;
  application_id: number | null;
  /** Whether the sign-up's mailed code was entered; an account waiting for it cannot sign in yet. */
  confirmed: boolean;
  /** How many accounts match the search and filter (the same on every row of a page). */
  total: number;
}

/** The token an account's person has, with its trading halt if any. */
export type { OwnToken } from './data';

export interface Application {
  id: number;
  user_id: string;
  username: string;
  email: string;
  display_name: string;
  category: string;
  bio: string;
  socials: { platform: string; handle: string; url: string }[];
  created_at: string;
  /** Tokens already on the market under the same name (letter case and spacing aside). */
  namesakes: { name: string; username: string; verified: boolean }[];
}

export interface AuditEntry {
  id: number;
  created_at: string;
  actor: string | null;
  action: string;
  target_username: string | null;
  target: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
}
