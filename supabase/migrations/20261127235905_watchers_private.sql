-- watchers_private: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

create policy "signed-in people are seen watching a token" on realtime.messages as permissive for insert to authenticated
  with check (((( SELECT realtime.topic() AS topic) ~~ 'watchers:%'::text) AND (extension = 'presence'::text)));

create policy "signed-in people see who watches a token" on realtime.messages as permissive for select to authenticated
  using ((( SELECT realtime.topic() AS topic) ~~ 'watchers:%'::text));
