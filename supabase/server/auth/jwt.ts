import { SignJWT, jwtVerify, errors } from 'jose';

export interface Claims {
  sub?: string;
  role: string;
  exp: number;
  [key: string]: unknown;
}

export type VerifyResult = { ok: true; claims: Claims } | { ok: false; reason: 'expired' | 'invalid' };

/** HS256 signing and verification with the project's JWT secret (Supabase's legacy keys). */
export class JwtKeys {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('JWT_SECRET must be at least 32 characters long');
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
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      if (typeof payload.role !== 'string' || typeof payload.exp !== 'number') return { ok: false, reason: 'invalid' };
      return { ok: true, claims: payload as Claims };
    } catch (error) {
      return { ok: false, reason: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}
