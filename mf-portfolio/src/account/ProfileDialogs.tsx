import { useState } from 'react';
import { type Profile } from '@repex/shared-ui/contracts';
import { authenticatorApps, toast, useQuery } from '@repex/shared-ui/platform';
import { changePassword, loadAccount, updateProfile, uploadImage } from './account';
import { Button, Field, FormDialog, FormError, Input, Muted, TextField, Textarea } from '@repex/shared-ui/ui';

/**
 * An image chosen for the profile, uploaded at once with supabase-js storage into the user's own
 * folder of the public 'avatars' bucket (its policies and limits are the server's).
 */
function ImageField({
  id,
  label,
  userId,
  kind,
  url,
  onUploaded,
  onError,
}: {
  id: string;
  label: string;
  userId: string;
  kind: 'avatar' | 'cover';
  url: string | null;
  onUploaded: (url: string) => void;
  onError: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const choose = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    // Named by its type, not its file name: the bucket takes only images, and a profile keeps
    // only names of letters, digits, dots and dashes (the database's rule).
    const path = `${userId}/${kind}-${Date.now()}.${file.type.split('/')[1] || 'img'}`;
    const uploaded = await uploadImage(path, file);
    setBusy(false);
    if ('refused' in uploaded) return onError(`${label}: ${uploaded.refused}`);
    onUploaded(uploaded.url);
  };
  return (
    <Field label={label} htmlFor={id} hint={busy ? 'Uploading...' : 'An image: PNG, JPEG, GIF or WebP.'}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 10 }}>
        {url && (
          <img
            src={url}
            alt=""
            width={kind === 'avatar' ? 40 : 96}
            height={40}
            style={{ objectFit: 'cover', borderRadius: 8 }}
          />
        )}
        <Input
          id={id}
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          onChange={(e) => void choose(e.target.files?.[0])}
        />
      </div>
    </Field>
  );
}

/** Edit Profile: name, bio, location and images, written under row-level security (own row, allowed columns). */
export function EditProfileDialog({
  profile,
  onClose,
  onSaved,
}: {
  profile: Profile;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [name, setName] = useState(profile.full_name);
  const [bio, setBio] = useState(profile.bio);
  const [location, setLocation] = useState(profile.location);
  const [avatar, setAvatar] = useState(profile.avatar_url);
  const [cover, setCover] = useState(profile.cover_url);
  const [uploadError, setUploadError] = useState<string>();
  const submit = async () => {
    const refused = await updateProfile(profile.id, {
      full_name: name.trim(),
      bio: bio.trim(),
      location: location.trim(),
      avatar_url: avatar,
      cover_url: cover,
    });
    if (refused) return refused; // the database's words: its rules for names, bios and images
    toast({ title: 'Profile Updated', description: 'Your changes are saved.' });
    onSaved();
    return null;
  };
  const images = [
    ['avatar', 'Avatar', avatar, setAvatar],
    ['cover', 'Cover image', cover, setCover],
  ] as const;
  return (
    <FormDialog title="Edit Profile" submitLabel="Save" send={submit} onClose={onClose}>
      <TextField id="edit-name" label="Name" value={name} maxLength={80} onValue={setName} required />
      <Field label="Bio" htmlFor="edit-bio" hint="Up to 500 characters.">
        <Textarea id="edit-bio" value={bio} maxLength={500} onChange={(e) => setBio(e.target.value)} />
      </Field>
      <TextField id="edit-location" label="Location" value={location} maxLength={80} onValue={setLocation} />
      {images.map(([kind, label, url, setUrl]) => (
        <ImageField
          key={kind}
          id={`edit-${kind}`}
          label={label}
          kind={kind}
          userId={profile.id}
          url={url}
          onUploaded={(uploaded) => {
            setUrl(uploaded);
            setUploadError(undefined);
          }}
          onError={setUploadError}
        />
      ))}
      {uploadError && <FormError>{uploadError}</FormError>}
    </FormDialog>
  );
}

/** The account's email, and a new one waiting for its code. */
export interface AccountEmail {
  current: string | undefined;
  pending: string | undefined;
}

/**
 * Settings: the email, two-step verification, the connected social accounts and the sessions (each
 * in a dialog of its own), and the password (other sessions end).
 */
export function SettingsDialog({
  onClose,
  onChangeEmail,
  onSessions,
  onTwoStep,
  onSocial,
  onApiKeys,
  onNotifications,
}: {
  onClose: () => void;
  /** Opens the notification choices. */
  onNotifications: () => void;
  onChangeEmail: (email: AccountEmail) => void;
  onSessions: () => void;
  /** Opens the connected social accounts. */
  onSocial: () => void;
  /** Opens the API keys. */
  onApiKeys: () => void;
  /** Opens the apps of the verification that is on (true), or Turn On (false). */
  onTwoStep: (on: boolean) => void;
}) {
  const user = useQuery(loadAccount, []);
  const email: AccountEmail = { current: user.data?.email, pending: user.data?.new_email };
  const apps = authenticatorApps(user.data?.factors);
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const submit = async () => {
    if (password !== confirm) return 'The two passwords differ.';
    const refused = await changePassword(password, current);
    if (refused) return refused;
    toast({ title: 'Password Changed', description: 'Your other sessions have been signed out.' });
    return null;
  };
  return (
    <FormDialog title="Settings" submitLabel="Change Password" send={submit} onClose={onClose}>
      {user.error && !user.data && (
        <FormError>
          Your account could not be loaded: {user.error.message}{' '}
          <Button type="button" $variant="link" onClick={user.reload}>
            Retry
          </Button>
        </FormError>
      )}
      <div style={{ overflowWrap: 'anywhere' }}>
        <Muted>
          Email: {email.current ?? '...'}
          {email.pending && ` (${email.pending} is waiting for its code)`}
        </Muted>{' '}
        <Button type="button" $variant="link" disabled={!user.data} onClick={() => onChangeEmail(email)}>
          Change email
        </Button>
      </div>
      <div>
        <Muted>
          Two-step verification:{' '}
          {!user.data
            ? '...'
            : apps.length > 1
              ? 'on, with two authenticator apps'
              : apps.length
                ? 'on, with an authenticator app'
                : 'off'}
        </Muted>{' '}
        <Button type="button" $variant="link" disabled={!user.data} onClick={() => onTwoStep(apps.length > 0)}>
          {apps.length ? 'Manage' : 'Turn on'}
        </Button>
      </div>
      <div>
        <Muted>Social accounts for your reputation analysis:</Muted>{' '}
        <Button type="button" $variant="link" onClick={onSocial}>
          Connected accounts
        </Button>
      </div>
      <div>
        <Muted>Fills, alerts, replies and security notices:</Muted>{' '}
        <Button type="button" $variant="link" onClick={onNotifications}>
          Notifications
        </Button>
      </div>
      <div>
        <Muted>Trading bots and market makers:</Muted>{' '}
        <Button type="button" $variant="link" onClick={onApiKeys}>
          API keys
        </Button>
      </div>
      <TextField
        id="settings-current"
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={current}
        onValue={setCurrent}
        required
      />
      <TextField
        id="settings-password"
        label="New password"
        type="password"
        autoComplete="new-password"
        value={password}
        onValue={setPassword}
        required
      />
      <TextField
        id="settings-confirm"
        label="Repeat the new password"
        type="password"
        autoComplete="new-password"
        value={confirm}
        onValue={setConfirm}
        required
      />
      <div>
        <Muted>Signed in somewhere else too?</Muted>{' '}
        <Button type="button" $variant="link" onClick={onSessions}>
          See where you are signed in
        </Button>
      </div>
    </FormDialog>
  );
}

/** Share: the link of the person's trading page, copied. */
export async function shareTradingPage(tokenId: string | undefined, name: string): Promise<void> {
  if (!tokenId) {
    toast({ title: 'Nothing to Share Yet', description: 'Your trading page appears once your token is issued.' });
    return;
  }
  const link = `${window.location.origin}/trading/${tokenId}`;
  try {
    await navigator.clipboard.writeText(link);
    toast({ title: 'Link Copied', description: `${name}'s trading page: ${link}` });
  } catch {
    toast({ title: 'Share This Link', description: link });
  }
}
