import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from '../../http/io';
import { API_VERSION_HEADER, AuthErrors, authError } from '../errors';
import type { Claims } from '../jwt';
import { sendMail } from '../mail';
import { newRefreshToken, sessionProof, sessionResponse } from '../sessions';
import { matchingStep, newTotpSecret, qrSvg, totpUri } from '../totp';
import type { UserRow } from '../users';
import { asBody, findUser, str, type AuthContext } from '../context';

/*
 * Two-step verification with an authenticator app, as GoTrue's MFA API (supabase.auth.mfa):
 * enroll a TOTP factor, challenge it, verify a code (which raises the session to aal2 and, the
 * first time, turns the factor on), unenroll. A second app is the backup for a lost phone, as
 * Supabase advises (GoTrue has no recovery codes). What a user with a verified factor may do at
 * aal1 is decided by the database (supabase/schemas/sessions.sql) and by PUT /user.
 */

/** How long a challenge may be answered (GoTrue's MFA_CHALLENGE_EXPIRY_DURATION). */
const CHALLENGE_SECONDS = 300;
/** Adding or removing an app needs a code entered this recently, so a browser left signed in cannot. */
const RECENT_CODE_SECONDS = 300;
/** An app and its backup. */
const MAX_APPS = 2;
/**
 * Turning two-step verification on needs a sign-in this recent, as a withdrawal does: a browser
 * left signed in must not be able to add its own app and lock the owner out with it.
 */
const RECENT_SIGN_IN_SECONDS = 15 * 60;

/** The latest time the session's user proved who they are (its amr), in seconds. */
function provedAt(claims: Claims): number {
  const times = (Array.isArray(claims.amr) ? claims.amr : []).map((a) =>
    Number((a as { timestamp?: unknown })?.timestamp),
  );
  return Math.max(0, ...times.filter((t) => Number.isFinite(t)));
}

interface FactorRow {
  id: string;
  status: 'unverified' | 'verified';
  secret: string;
  last_totp_step: string | null;
}

const factorNotFound = () => authError(404, 'mfa_factor_not_found', 'Factor not found');

/** The app the session entered a code from in the last few minutes, if it did. */
async function recentCodeFrom(ctx: AuthContext, claims: Claims): Promise<string | null> {
  const [row] = await ctx.db.query<{ factor_id: string | null }>(
    `select factor_id from auth.sessions where id::text = $1 and aal = 'aal2'
        and mfa_verified_at > now() - make_interval(secs => $2)`,
    [String(claims.session_id ?? ''), RECENT_CODE_SECONDS],
  );
  return row ? (row.factor_id ?? '') : null;
}

const verifiedApps = (user: UserRow) => user.factors.filter((f) => f.status === 'verified');

/** Whether the user has turned two-step verification on (a verified factor). */
export const hasVerifiedFactor = (user: UserRow) => verifiedApps(user).length > 0;

/** POST /factors: a new TOTP secret for the user's app, shown once as a QR code and as text. */
export async function enroll(ctx: AuthContext, req: IncomingMessage, res: ServerResponse) {
  const { user, claims } = await ctx.authenticate(req);
  const body = asBody(await readJson(req));
  if (body.factor_type !== 'totp')
    throw authError(422, 'validation_failed', 'factor_type needs to be totp: RepX offers authenticator apps only');
  const apps = verifiedApps(user);
  if (apps.length >= MAX_APPS)
    throw authError(
      422,
      'too_many_enrolled_mfa_factors',
      'You already have two authenticator apps. Remove one to add another.',
    );
  if (apps.length && (await recentCodeFrom(ctx, claims)) === null)
    throw authError(403, 'insufficient_aal', 'Enter a code from your authenticator app to add another one.');
  if (!apps.length && provedAt(claims) < Date.now() / 1000 - RECENT_SIGN_IN_SECONDS)
    throw authError(
      401,
      'reauthentication_needed',
      'For your security, enter your password to turn on two-step verification.',
    );
  const friendlyName = str(body.friendly_name).trim().slice(0, 100) || null;
  if (friendlyName && apps.some((f) => f.friendly_name === friendlyName))
    throw authError(
      422,
      'mfa_factor_name_conflict',
      `A factor with the friendly name "${friendlyName}" for this user already exists`,
    );
  const issuer = str(body.issuer).trim().slice(0, 100) || new URL(ctx.settings.issuer).host;
  const secret = newTotpSecret();
  const factor = await ctx.db.transaction(async (tx) => {
    // An enrolment never finished (the page closed before the first code) is replaced.
    await tx.query(`delete from auth.mfa_factors where user_id = $1 and status = 'unverified'`, [user.id]);
    const [row] = await tx.query<{ id: string }>(
      `insert into auth.mfa_factors (user_id, friendly_name, secret) values ($1, $2, $3) returning id`,
      [user.id, friendlyName, secret],
    );
    return row!;
  });
  const uri = totpUri(issuer, user.email, secret);
  sendJson(
    res,
    200,
    { id: factor.id, type: 'totp', friendly_name: friendlyName ?? '', totp: { qr_code: qrSvg(uri), secret, uri } },
    API_VERSION_HEADER,
  );
}

async function ownFactor(ctx: AuthContext, user: UserRow, factorId: string): Promise<FactorRow> {
  const [factor] = await ctx.db.query<FactorRow>(
    'select id, status, secret, last_totp_step from auth.mfa_factors where id::text = $1 and user_id = $2',
    [factorId, user.id],
  );
  if (!factor) throw factorNotFound();
  return factor;
}

/** POST /factors/:id/challenge: a challenge the next code answers. */
export async function challenge(ctx: AuthContext, req: IncomingMessage, res: ServerResponse, factorId: string) {
  const { user } = await ctx.authenticate(req);
  const factor = await ownFactor(ctx, user, factorId);
  const [row] = await ctx.db.query<{ id: string; expires_at: string }>(
    `insert into auth.mfa_challenges (factor_id, ip_address) values ($1, $2)
     returning id, extract(epoch from created_at)::bigint + $3 as expires_at`,
    [factor.id, ctx.client(req).ip, CHALLENGE_SECONDS],
  );
  sendJson(res, 200, { id: row!.id, type: 'totp', expires_at: Number(row!.expires_at) }, API_VERSION_HEADER);
}

/**
 * POST /factors/:id/verify: a code from the app answers the challenge. The session becomes aal2
 * and gets a new refresh token; the first code turns the factor on, and the user's other sessions
 * that never entered a code end. Wrong codes count toward the account's lockout, as wrong
 * passwords do; a code already accepted is refused.
 */
export async function verifyFactor(ctx: AuthContext, req: IncomingMessage, res: ServerResponse, factorId: string) {
  const { user, claims } = await ctx.authenticate(req);
  const body = asBody(await readJson(req));
  const code = str(body.code).replace(/\s/g, '');
  const challengeId = str(body.challenge_id);
  const factor = await ownFactor(ctx, user, factorId);
  const guess = await ctx.lockout.guess(user.id, ctx.address(req));
  if (guess.wait > 0) throw AuthErrors.accountLocked(guess.wait);
  const sessionId = String(claims.session_id ?? '');
  const session = await ctx.db.transaction(async (tx) => {
    const [open] = await tx.query<{ expired: boolean }>(
      `select created_at < now() - make_interval(secs => $3) as expired from auth.mfa_challenges
        where id::text = $1 and factor_id = $2 and verified_at is null for update`,
      [challengeId, factor.id, CHALLENGE_SECONDS],
    );
    if (!open) throw authError(404, 'mfa_challenge_not_found', 'Challenge not found. Ask for a new one.');
    if (open.expired)
      throw authError(
        400,
        'mfa_challenge_expired',
        'The challenge has expired. Ask for a new one and enter the code again.',
      );
    const step = matchingStep(factor.secret, code, Date.now());
    if (step === null) return 'wrong';
    // Taken under the factor's row lock, so two requests cannot both spend the same code.
    const [spent] = await tx.query(
      `update auth.mfa_factors set status = 'verified', last_totp_step = $2, updated_at = now()
        where id = $1 and coalesce(last_totp_step, -1) < $2 returning id`,
      [factor.id, step],
    );
    if (!spent) return 'used';
    await tx.query('update auth.mfa_challenges set verified_at = now() where id::text = $1', [challengeId]);
    await tx.query(
      `update auth.sessions set aal = 'aal2', factor_id = $2, mfa_verified_at = now(), refreshed_at = now() where id::text = $1`,
      [sessionId, factor.id],
    );
    if (factor.status === 'unverified') {
      // Whoever else is signed in with the password alone is signed out; the owner is told.
      await tx.query(`delete from auth.sessions where user_id = $1 and id::text <> $2 and aal = 'aal1'`, [
        user.id,
        sessionId,
      ]);
      await sendMail(
        tx,
        hasVerifiedFactor(user)
          ? {
              to: user.email,
              subject: 'A second authenticator app was added',
              text: 'A second authenticator app was added to your RepX account: signing in accepts a code from either app. If it was not you, reset your password now and contact support.',
            }
          : {
              to: user.email,
              subject: 'Two-step verification is on',
              text: 'Two-step verification is now on for your RepX account: signing in asks for a code from your authenticator app. If it was not you, reset your password now and contact support.',
            },
        ctx.mailer,
      );
    }
    await tx.query('update auth.refresh_tokens set revoked = true, updated_at = now() where session_id::text = $1', [
      sessionId,
    ]);
    const refresh = newRefreshToken();
    await tx.query('insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3::uuid)', [
      refresh,
      user.id,
      sessionId,
    ]);
    const current = (await findUser(tx, user.id))!;
    return sessionResponse(ctx.settings, current, sessionId, refresh, await sessionProof(tx, sessionId));
  });
  if (session === 'wrong' || session === 'used') {
    throw authError(
      422,
      'mfa_verification_failed',
      session === 'used'
        ? 'That code was already used. Enter the next one your app shows.'
        : 'Invalid TOTP code entered',
    );
  }
  await guess.right();
  sendJson(res, 200, session, API_VERSION_HEADER);
}

/**
 * DELETE /factors/:id: removes an app, after a code entered in the last few minutes. Removing the
 * last one turns the verification off: every session of the user falls back to aal1. Removing one
 * of two (a lost phone) needs the code from the app that stays, and signs out the sessions whose
 * code came from the one removed. The owner is told either way.
 */
export async function unenroll(ctx: AuthContext, req: IncomingMessage, res: ServerResponse, factorId: string) {
  const { user, claims } = await ctx.authenticate(req);
  const factor = await ownFactor(ctx, user, factorId);
  const stays = verifiedApps(user).filter((f) => f.id !== factor.id);
  if (factor.status === 'verified') {
    const codeFrom = await recentCodeFrom(ctx, claims);
    if (!stays.length && codeFrom === null)
      throw authError(
        403,
        'insufficient_aal',
        'Enter a code from your authenticator app to turn off two-step verification.',
      );
    if (stays.length && !stays.some((f) => f.id === codeFrom))
      throw authError(403, 'insufficient_aal', 'Enter a code from the app you keep to remove this one.');
  }
  await ctx.db.transaction(async (tx) => {
    if (factor.status === 'verified' && stays.length) {
      await tx.query('delete from auth.sessions where user_id = $1 and factor_id = $2', [user.id, factor.id]);
      await tx.query('delete from auth.mfa_factors where id = $1', [factor.id]);
      await sendMail(
        tx,
        {
          to: user.email,
          subject: 'An authenticator app was removed',
          text: 'An authenticator app was removed from your RepX account, and whoever was signed in with its codes was signed out. Two-step verification stays on with your other app. If it was not you, reset your password now and contact support.',
        },
        ctx.mailer,
      );
      return;
    }
    await tx.query('delete from auth.mfa_factors where id = $1', [factor.id]);
    if (factor.status !== 'verified') return;
    await tx.query(
      `update auth.sessions set aal = 'aal1', factor_id = null, mfa_verified_at = null where user_id = $1`,
      [user.id],
    );
    await sendMail(
      tx,
      {
        to: user.email,
        subject: 'Two-step verification is off',
        text: 'Two-step verification was turned off for your RepX account: signing in asks for your password only. If it was not you, reset your password now and contact support.',
      },
      ctx.mailer,
    );
  });
  sendJson(res, 200, { id: factor.id }, API_VERSION_HEADER);
}
