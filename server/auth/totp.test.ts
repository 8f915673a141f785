import { base32, matchingStep, qrSvg, totpCode, totpStep, totpUri } from './totp';

// RFC 6238 appendix B, SHA-1: the secret is the ASCII "12345678901234567890"; eight digits there,
// whose last six are the six-digit code (the same truncated number, mod 10^6).
const RFC_SECRET = base32(Buffer.from('12345678901234567890'));
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

test('codes match RFC 6238 test vectors', () => {
  expect(RFC_SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  for (const [seconds, code] of RFC_VECTORS) {
    const step = totpStep(seconds * 1000);
    expect(totpCode(RFC_SECRET, step, 8)).toBe(code);
    expect(totpCode(RFC_SECRET, step)).toBe(code.slice(2));
  }
});

test('a code is accepted in its step and the next and previous one, never further', () => {
  const now = 1_800_000_000_000;
  const step = totpStep(now);
  const at = (s: number) => totpCode(RFC_SECRET, s);
  expect(matchingStep(RFC_SECRET, at(step), now)).toBe(step);
  expect(matchingStep(RFC_SECRET, at(step - 1), now)).toBe(step - 1);
  expect(matchingStep(RFC_SECRET, at(step + 1), now)).toBe(step + 1);
  for (const far of [step - 2, step + 2]) {
    if (![step - 1, step, step + 1].some((s) => at(s) === at(far)))
      expect(matchingStep(RFC_SECRET, at(far), now)).toBeNull();
  }
  for (const bad of ['', '12345', '1234567', 'abcdef', ' 123456'])
    expect(matchingStep(RFC_SECRET, bad, now)).toBeNull();
});

test('the otpauth URI and its QR code', () => {
  const uri = totpUri('RepX', 'ann@repx.dev', RFC_SECRET);
  expect(uri).toBe(`otpauth://totp/RepX:ann%40repx.dev?secret=${RFC_SECRET}&issuer=RepX`);
  expect(qrSvg(uri)).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"[^>]*>.*<\/svg>$/s);
});
