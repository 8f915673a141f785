-- Names and bios that other people read hold no control or invisible formatting characters. A
-- right-to-left override turned 'Alex<U+202E>areviR' into what reads as 'AlexRivera', and a zero-width
-- space or a direction mark made a copy of an existing name that looks the same: ways to pass as
-- someone else on the market, to an admin reviewing an application, too. A name of spaces only
-- was blank. The profile's checks also say in words what its constraints only refused (the Edit
-- dialog restated them). Joiners (U+200C, U+200D) stay: scripts and emoji need them. Only a field
-- that changes is checked, so older text does not block other edits.

-- Refuses, in words, control characters (a bio may have line breaks) and invisible formatting: the
-- Arabic letter mark, zero-width space, direction marks, embeddings, overrides and isolates,
-- invisible operators, the byte-order mark and interlinear annotation marks.
create or replace function private.refuse_hidden_characters(p_text text, p_what text, p_lines boolean default false)
returns void language plpgsql immutable as $$
begin
  if p_text ~ (case when p_lines then '[\x01-\x09\x0b\x0c\x0e-\x1f' else '[\x01-\x1f' end
               || '\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]') then
    raise exception '% cannot hold control characters%or invisible formatting characters (such as a right-to-left override).',
      p_what, case when p_lines then ' (line breaks aside) ' else ' ' end using errcode = 'P0001';
  end if;
end $$;
revoke all on function private.refuse_hidden_characters(text, text, boolean) from public;

create or replace function private.check_profile_text() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.full_name is distinct from old.full_name then
    if char_length(btrim(new.full_name)) not between 1 and 80 then raise exception 'A name needs 1 to 80 characters.'; end if;
    perform private.refuse_hidden_characters(new.full_name, 'A name');
  end if;
  if tg_op = 'INSERT' or new.location is distinct from old.location then
    if char_length(new.location) > 80 then raise exception 'A location has at most 80 characters.'; end if;
    perform private.refuse_hidden_characters(new.location, 'A location');
  end if;
  if tg_op = 'INSERT' or new.bio is distinct from old.bio then
    if char_length(new.bio) > 500 then raise exception 'A bio has at most 500 characters.'; end if;
    perform private.refuse_hidden_characters(new.bio, 'A bio', true);
  end if;
  return new;
end $$;
revoke all on function private.check_profile_text() from public;

create trigger check_profile_text before insert or update of full_name, location, bio on public.profiles
  for each row execute function private.check_profile_text();

create or replace function private.check_application_text() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' or new.display_name is distinct from old.display_name then
    perform private.refuse_hidden_characters(new.display_name, 'The display name');
  end if;
  if tg_op = 'INSERT' or new.bio is distinct from old.bio then
    perform private.refuse_hidden_characters(new.bio, 'The bio', true);
  end if;
  return new;
end $$;
revoke all on function private.check_application_text() from public;

create trigger check_application_text before insert or update of display_name, bio on public.token_applications
  for each row execute function private.check_application_text();
