import crypto from 'node:crypto';
import qrcode from 'qrcode-generator';

/**
 * Time-based one-time passwords (RFC 6238) as authenticator apps read them from an otpauth URI:
 * HMAC-SHA1, six digits, 30-second steps. A code is accepted in its step and the one on either
 * side (a phone's clock a little off, a code typed as it turned).
 */
export const TOTP = { digits: 6, stepSeconds: 30, window: 1 };

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function fromBase32(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new shared secret: 160 random bits (RFC 4226's recommended length), in base32 as apps take it. */
export const newTotpSecret = () => base32(crypto.randomBytes(20));

/** The 30-second step a time (ms since the epoch) falls in. */
export const totpStep = (nowMs: number) => Math.floor(nowMs / 1000 / TOTP.stepSeconds);

/** The code of `step` for a base32 secret (RFC 4226's dynamic truncation). */
export function totpCode(secret: string, step: number, digits = TOTP.digits): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = crypto.createHmac('sha1', fromBase32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 15;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/**
 * The step whose code `code` is, within the window around now, or null. Each step is compared in
 * constant time; the caller refuses a step at or before the last one accepted, so a code seen
 * over a shoulder cannot be used again.
 */
export function matchingStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(nowMs);
  let found: number | null = null;
  for (let step = now - TOTP.window; step <= now + TOTP.window; step++) {
    if (crypto.timingSafeEqual(Buffer.from(totpCode(secret, step)), Buffer.from(code))) found = step;
  }
  return found;
}

/** The otpauth URI an authenticator app scans (Google Authenticator's key URI format). */
export function totpUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}`;
}

/** The URI as a QR code, an SVG document (GoTrue's qr_code; supabase-js makes it a data URI). */
export function qrSvg(uri: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(uri);
  qr.make();
  return qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true });
}
