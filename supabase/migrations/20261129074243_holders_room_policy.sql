-- holders_room_policy: derived from supabase/schemas by `npm run db:diff`. Read the schema files, not this.
-- Functions are checked when called, as pg_dump's scripts do: a migration may define them in any order.
set local check_function_bodies = off;

drop policy if exists "holders hear their room" on realtime.messages;

create policy "holders hear their room" on realtime.messages as permissive for select to authenticated
  using (((( SELECT realtime.topic() AS topic) ~~ 'holders:%'::text) AND ( SELECT private.in_holders_room((substr(realtime.topic(), 9))::uuid, ( SELECT auth.uid() AS uid)) AS in_holders_room)));
