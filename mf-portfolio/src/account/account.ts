import { refusal, supabase, unwrap } from '@repex/shared-ui/platform';
import type { Database } from '@repex/shared-ui/contracts';

/**
 * The profile's reads and calls: the account (auth), its profile row, its images, its sessions and
 * its token application. A call answers the refusal in the server's words, or null when it went
 * through; a read throws them.
 */

/** The signed-in account as the auth server has it (email, a pending new email, authenticator apps). */
export async function loadAccount() {
  const { data, error } = await supabase().auth.getUser();
  if (error) throw error;
  return data.user;
}

export const changePassword = async (password: string, currentPassword: string) =>
  refusal(await supabase().auth.updateUser({ password, current_password: currentPassword }));

/** Asks for a code at a new address; the address changes when the code comes back. */
export const askEmailChange = async (email: string, currentPassword: string) =>
  refusal(await supabase().auth.updateUser({ email, current_password: currentPassword }));

/** The code mailed to the new address; then the session's next token carries that address. */
export async function confirmEmailChange(email: string, code: string): Promise<string | null> {
  const refused = refusal(await supabase().auth.verifyOtp({ email, token: code, type: 'email_change' }));
  if (!refused) await supabase().auth.refreshSession();
  return refused;
}

type ProfileChange = Pick<
  Database['public']['Tables']['profiles']['Update'],
  'full_name' | 'bio' | 'location' | 'avatar_url' | 'cover_url'
>;

export const updateProfile = async (id: string, change: ProfileChange) =>
  refusal(await supabase().from('profiles').update(change).eq('id', id));

/** Uploads an image of the user's to the avatars bucket; its public address, or the refusal. */
export async function uploadImage(path: string, file: File): Promise<{ url: string } | { refused: string }> {
  const bucket = supabase().storage.from('avatars');
  const { error } = await bucket.upload(path, file, { contentType: file.type, upsert: true });
  return error ? { refused: error.message } : { url: bucket.getPublicUrl(path).data.publicUrl };
}

/** Where the account is signed in. */
export const loadSessions = async () => unwrap(await supabase().rpc('my_sessions'));
export type Session = Awaited<ReturnType<typeof loadSessions>>[number];

export const endSession = async (id: string) => refusal(await supabase().rpc('end_my_session', { p_session: id }));

export const endOtherSessions = async () => refusal(await supabase().auth.signOut({ scope: 'others' }));

/** The account's latest token application, if it made one. */
export const loadLatestApplication = async (userId: string) =>
  unwrap(
    await supabase()
      .from('token_applications')
      .select('id, display_name, category, status, reason, created_at')
      .eq('user_id', userId)
      .order('created_at', { ascending: false })
      .limit(1)
      .maybeSingle(),
  );

export const loadCategories = async () =>
  unwrap(await supabase().from('categories').select('name').order('position')).map((c) => c.name);

/** Applies for the user's token; the application lists the accounts they have connected. */
export const applyForToken = async (application: { name: string; category: string; bio: string }) =>
  refusal(
    await supabase().rpc('apply_for_token', {
      p_display_name: application.name,
      p_category: application.category,
      p_bio: application.bio,
    }),
  );

/** Adds an authenticator app: its secret and QR code to show, or the auth server's error. */
export const enrollApp = (name: string) =>
  supabase().auth.mfa.enroll({ factorType: 'totp', friendlyName: name, issuer: 'RepX' });

/** Removes an authenticator app; then the session's user and token no longer carry it. */
export async function removeApp(id: string): Promise<string | null> {
  const refused = refusal(await supabase().auth.mfa.unenroll({ factorId: id }));
  if (!refused) await supabase().auth.refreshSession();
  return refused;
}
