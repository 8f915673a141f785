import { supabase } from './supabase';
import { toast } from './toast/toastStore';

/**
 * Signs this browser out and tells the user; resolves true when the session is gone. Only this
 * browser's session ends: signing out everywhere is its own action (Settings, sessions).
 */
export async function signOutWithToast(kind: 'user' | 'admin'): Promise<boolean> {
  const { error } = await supabase().auth.signOut({ scope: 'local' });
  if (error) {
    toast({ title: 'Sign out Failed', description: error.message || 'Something went wrong', variant: 'destructive' });
    return false;
  }
  toast({
    title: kind === 'admin' ? 'Admin Signed Out' : 'Signed Out',
    description: 'You have been successfully signed out.',
  });
  return true;
}
