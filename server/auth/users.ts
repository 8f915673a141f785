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
  /** The user's authenticator apps (two-step verification), as GoTrue lists them in the User. */
  factors: FactorJson[];
}

interface FactorJson {
  id: string;
  friendly_name: string | null;
  factor_type: 'totp';
  status: 'unverified' | 'verified';
  created_at: string;
  updated_at: string;
}

/** The factors of the auth.users row in scope (a correlated subquery; the row is named users). */
const FACTORS = `(select coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'friendly_name', f.friendly_name,
    'factor_type', f.factor_type, 'status', f.status, 'created_at', f.created_at, 'updated_at', f.updated_at)
    order by f.created_at), '[]') from auth.mfa_factors f where f.user_id = users.id) as factors`;

export const USER_COLUMNS =
  'id, email, encrypted_password, email_confirmed_at, last_sign_in_at, email_change, email_change_sent_at, raw_app_meta_data, raw_user_meta_data, coalesce(banned_until > now(), false) as banned, created_at, updated_at, ' +
  FACTORS;

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
    ...(u.factors.length ? { factors: u.factors } : {}),
    is_anonymous: false,
  };
}
