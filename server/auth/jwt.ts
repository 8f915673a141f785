import { SignJWT, jwtVerify, errors } from 'jose';

export interface Claims {
  sub?: string;
  role: string;
  exp: number;
  [key: string]: unknown;
}

export type VerifyResult = { ok: true; claims: Claims } | { ok: false; reason: 'expired' | 'invalid' };

/**
 * The longest token accepted anywhere (a header, a query, a Realtime join): GoTrue's tokens are well
 * under it, user_metadata included (auth/context.ts bounds it).
 */
const MAX_TOKEN_LENGTH = 12 * 1024;
/** HS256 wants a key as long as its hash (32 bytes); GoTrue asks the same of its secret. */
export const MIN_JWT_SECRET_LENGTH = 32;
/** The verified-token cache's bound, in bytes of tokens. */
const MAX_CACHE_BYTES = 8 * 1024 * 1024;

/** HS256 signing and verification with the project's JWT secret (Supabase's legacy keys). */
export class JwtKeys {
  private readonly key: Uint8Array;
  /**
   * Tokens already verified, with their claims: the constant API key of every request and a
   * user's bearer, used until it expires, are verified once (HMAC gives the same verdict each
   * time; expiry is still checked at every use, and sessions by the database).
   */
  private readonly verified = new Map<string, Claims>();
  /** What the cache holds, in bytes of tokens: bounded, however long the tokens a client sends. */
  private cachedBytes = 0;

  constructor(secret: string) {
    if (secret.length < MIN_JWT_SECRET_LENGTH)
      throw new Error(`JWT_SECRET must be at least ${MIN_JWT_SECRET_LENGTH} characters long`);
    this.key = new TextEncoder().encode(secret);
  }

  sign(claims: Record<string, unknown>): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(this.key);
  }

  /** A project API key (anon or service_role), long-lived as Supabase's legacy keys are. */
  apiKey(role: 'anon' | 'service_role'): Promise<string> {
    const iat = Math.floor(Date.now() / 1000);
    return this.sign({ iss: 'supabase', ref: 'local', role, iat, exp: iat + 10 * 365 * 24 * 3600 });
  }

  async verify(token: string): Promise<VerifyResult> {
    if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'invalid' };
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > Date.now()) return { ok: true, claims: known };
      this.forget(token);
      return { ok: false, reason: 'expired' };
    }
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      if (typeof payload.role !== 'string' || typeof payload.exp !== 'number') return { ok: false, reason: 'invalid' };
      const claims = Object.freeze(payload) as Claims;
      while (this.verified.size && (this.verified.size >= 10_000 || this.cachedBytes + token.length > MAX_CACHE_BYTES))
        this.forget(this.verified.keys().next().value!);
      this.verified.set(token, claims);
      this.cachedBytes += token.length;
      return { ok: true, claims };
    } catch (error) {
      // By jose's documented error code rather than its class, which a second copy of jose would not match.
      const expired = (error as { code?: unknown } | null)?.code === errors.JWTExpired.code;
      return { ok: false, reason: expired ? 'expired' : 'invalid' };
    }
  }

  private forget(token: string): void {
    if (this.verified.delete(token)) this.cachedBytes -= token.length;
  }
}
