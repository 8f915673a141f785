/** auth.users as the server reads it, and the User JSON that GoTrue returns. */
export interface UserRow {
  id: string;
  email: string;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  last_sign_in_at: Date | null;
  /** A new email waiting for its code, and when the code was sent. */
  email_change: string | null;
  email_change_sent_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  /** Computed in SQL: banned_until may be 'infinity', which a JS Date cannot hold. */
  banned: boolean;
  created_at: Date;
  updated_at: Date;
}

export const USER_COLUMNS =
  'id, email, encrypted_password, email_confirmed_at, last_sign_in_at, email_change, email_change_sent_at, raw_app_meta_data, raw_user_meta_data, coalesce(banned_until > now(), false) as banned, created_at, updated_at';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : undefined);

export function userJson(u: UserRow) {
  return {
    id: u.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: u.email,
    phone: '',
    email_confirmed_at: iso(u.email_confirmed_at),
    confirmed_at: iso(u.email_confirmed_at),
    last_sign_in_at: iso(u.last_sign_in_at),
    ...(u.email_change ? { new_email: u.email_change, email_change_sent_at: iso(u.email_change_sent_at) } : {}),
    app_metadata: u.raw_app_meta_data,
    user_metadata: u.raw_user_meta_data,
    identities: [
      {
        identity_id: u.id,
        id: u.id,
        user_id: u.id,
        identity_data: { sub: u.id, email: u.email, email_verified: !!u.email_confirmed_at, phone_verified: false },
        provider: 'email',
        last_sign_in_at: iso(u.last_sign_in_at),
        created_at: iso(u.created_at),
        updated_at: iso(u.updated_at),
        email: u.email,
      },
    ],
    created_at: iso(u.created_at),
    updated_at: iso(u.updated_at),
    is_anonymous: false,
  };
}
