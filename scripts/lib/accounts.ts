/** The seeded accounts (supabase/seed.sql). Local demo data only: never on a shared deployment. */
export const DEMO_ACCOUNTS = {
  user: { email: 'demo@repx.dev', password: 'demo-trader-2026' },
  admin: { email: 'admin@repx.dev', password: 'admin-repx-2026' },
} as const;
