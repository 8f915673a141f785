/**
 * The local stack's well-known demo values: the Supabase CLI's JWT secret and anon key, and the
 * accounts that supabase/seed.sql creates. Local development only; never on a shared deployment.
 */
export const DEMO_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
export const DEMO_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0';
export const DEMO_ACCOUNTS = {
  user: { email: 'demo@repx.dev', password: 'demo-trader-2026' },
  admin: { email: 'admin@repx.dev', password: 'admin-repx-2026' },
} as const;
