import path from 'node:path';
import type { Page } from 'playwright-core';
import { adminPage } from './helpers/admin';
import { SCREENSHOTS, eventually, signUp, startApp, toastText, type E2EApp } from './helpers/app';

jest.setTimeout(240_000);

let app: E2EApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.close());

/** A new account in its own browser at `width`, holding `tokens` of the token. */
async function person(name: string, width: number, token: string, tokens: number): Promise<Page> {
  const page = await (await app.newContext({ width })).newPage();
  const email = `${name}@e2e.repx.dev`;
  await signUp(page, app, { username: name, email, password: `${name}-password-1` });
  if (tokens)
    await app.backend.db.query(`select private.issue_tokens($1, id, $2) from auth.users where email = $3`, [
      token,
      tokens,
      email,
    ]);
  return page;
}

const discussion = (page: Page) => page.getByRole('region', { name: 'Discussion' });
const postBy = (page: Page, name: string, text: string) =>
  discussion(page)
    .getByRole('article', { name: `Post by ${name}` })
    .filter({ hasText: text })
    .first();

test('two people discuss a token live, a reply rings the bell, a report is reviewed, and a room opens to holders', async () => {
  const [token] = await app.backend.db.query<{ id: string }>(
    `insert into tokens (name, username, category, reputation_score, total_supply, issue_price)
     values ('Talk Person', 'talkperson', 'Designer', 50, 10000, 10) returning id`,
  );
  const url = `${app.url}/trading/${token!.id}`;
  const owner = await person('talk_owner', 1280, token!.id, 500);
  await app.backend.db.query(
    `update tokens set owner_id = (select id from auth.users where email = $1) where id = $2`,
    ['talk_owner@e2e.repx.dev', token!.id],
  );
  const fan = await person('talk_fan', 390, token!.id, 40);
  // The fan has notices from before, read already: the bell lists 20 and pages back to the rest.
  await app.backend.db.query(
    `insert into notifications (user_id, kind, title, body, read_at)
     select id, 'vesting', 'Old notice ' || g, 'An older notice.', now() from auth.users, generate_series(1, 25) g
      where email = $1`,
    ['talk_fan@e2e.repx.dev'],
  );
  const outsider = await person('talk_outsider', 1280, token!.id, 0);
  for (const p of [owner, fan, outsider]) {
    await p.goto(url);
    await discussion(p).getByText('No posts yet. Start the conversation.').waitFor();
  }

  // The fan posts from a phone; the person sees it arrive, with the fan's holding, without reading again.
  await fan
    .getByRole('textbox', { name: 'Post in the discussion' })
    .fill('Great launch! Details at https://example.com/talk');
  await fan.getByRole('button', { name: 'Post', exact: true }).click();
  const fanPost = postBy(owner, 'talk_fan', 'Great launch!');
  await fanPost.waitFor();
  await fanPost.getByText('Large holder').waitFor();
  await expect(fanPost.getByRole('link', { name: 'https://example.com/talk' }).getAttribute('rel')).resolves.toMatch(
    /noopener/,
  );

  // The person replies, naming the fan; the fan's bell rings, and its notice leads to the token.
  await fanPost.getByRole('button', { name: 'Reply' }).click();
  await owner.getByRole('textbox', { name: 'Reply to talk_fan' }).fill('Thank you @talk_fan, more soon.');
  await owner.getByRole('form', { name: 'Reply to talk_fan' }).getByRole('button', { name: 'Reply' }).click();
  await postBy(owner, 'talk_owner', 'Thank you').getByText('The person').waitFor();
  await fan.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
  await toastText(fan, 'talk_owner replied to your post');
  await fan.screenshot({ path: path.join(SCREENSHOTS, 'discussion-reply-390.png') });
  await fan.getByRole('button', { name: 'Notifications, 1 unread' }).click();
  const panel = fan.getByRole('region', { name: 'Your notifications' });
  await expect(panel.getByRole('button', { name: /Old notice/ }).count()).resolves.toBe(20);
  await panel.getByRole('button', { name: 'Show older notices' }).click();
  await panel.getByRole('button', { name: 'Old notice 1', exact: true }).waitFor();
  await expect(panel.getByRole('button', { name: /Old notice/ }).count()).resolves.toBe(25);
  await panel.getByRole('button', { name: 'Unread: talk_owner replied to your post' }).click();
  await fan.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
  await postBy(fan, 'talk_owner', 'Thank you').waitFor();
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'discussion-1280.png'), fullPage: true });

  // Someone reports the fan's post; the admin reviews it in Reports and hides it, with a reason.
  await postBy(outsider, 'talk_fan', 'Great launch!').getByRole('button', { name: 'Report' }).first().click();
  const dialog = outsider.getByRole('dialog', { name: 'Report Post' });
  await dialog.getByLabel('Reason').fill('Looks like a pump');
  await dialog.getByRole('button', { name: 'Report' }).click();
  await toastText(outsider, 'Post Reported');
  const admin = await adminPage(app);
  await admin.getByRole('tab', { name: 'Post Reports' }).click();
  const queue = admin.getByRole('list', { name: 'Reported posts' });
  await queue.getByText('Looks like a pump', { exact: false }).waitFor();
  await admin.screenshot({ path: path.join(SCREENSHOTS, 'admin-reports-1280.png'), fullPage: true });
  await queue.getByRole('button', { name: 'Hide' }).click();
  const hide = admin.getByRole('dialog', { name: 'Hide Post' });
  await hide.getByLabel(/Reason/).fill('Promotion without disclosure');
  await hide.getByRole('button', { name: 'Hide Post' }).click();
  await toastText(admin, 'Post Hidden');
  // Hidden for everyone else, and its replies with it.
  await outsider.reload();
  await discussion(outsider).getByText('No posts yet. Start the conversation.').waitFor();

  // The person opens a room for holders of 30; the fan, holding 40, posts there; the outsider is kept out.
  await discussion(owner).getByRole('button', { name: 'Open holders’ room' }).click();
  const room = owner.getByRole('dialog', { name: "Open a Holders' Room" });
  await room.getByLabel('Minimum tokens held').fill('30');
  await room.getByRole('button', { name: 'Open Room' }).click();
  await discussion(owner).getByRole('button', { name: 'Holders’ room' }).waitFor();
  await fan.reload();
  await discussion(fan).getByRole('button', { name: 'Holders’ room' }).click();
  await fan.getByRole('textbox', { name: 'Post in the holders’ room' }).fill('Holders only: when is the next drop?');
  await fan.getByRole('button', { name: 'Post', exact: true }).click();
  await postBy(fan, 'talk_fan', 'Holders only').waitFor();
  await fan.screenshot({ path: path.join(SCREENSHOTS, 'holders-room-390.png'), fullPage: true });
  await outsider.reload();
  await discussion(outsider).getByRole('button', { name: 'Holders’ room' }).click();
  await discussion(outsider)
    .getByText(/for holders of at least 30 Talk Person tokens/)
    .first()
    .waitFor();
  await expect(discussion(outsider).getByText('Holders only').count()).resolves.toBe(0);
  await outsider.screenshot({ path: path.join(SCREENSHOTS, 'holders-room-closed-1280.png'), fullPage: true });

  // The person's own profile carries their token's discussion, the room included.
  await owner.goto(`${app.url}/profile`);
  await discussion(owner).getByText('No posts yet. Start the conversation.').waitFor();
  // The profile's cards above still load and move the discussion down: click until it took.
  const roomButton = discussion(owner).getByRole('button', { name: 'Holders’ room' });
  await eventually(async () => {
    await roomButton.click();
    return roomButton.getAttribute('aria-pressed');
  }, 'true');
  await discussion(owner).getByText('For holders of at least 30 Talk Person tokens.').waitFor();
  await postBy(owner, 'talk_fan', 'Holders only').waitFor();
  await owner.setViewportSize({ width: 390, height: 844 });
  await owner.screenshot({ path: path.join(SCREENSHOTS, 'profile-discussion-390.png'), fullPage: true });
});
