/** A peer's address as people write it: an IPv4 peer of a dual-stack socket (::ffff:1.2.3.4) as IPv4. */
export function plainAddress(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
}
