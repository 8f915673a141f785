import crypto from 'node:crypto';
import net from 'node:net';
import type { Queryable } from '../db/database';
import { plainAddress } from '../http/address';
import type { Claims } from './jwt';

/** What every RepX API key starts with (supabase/schemas/api_keys.sql makes them). */
const API_KEY_PREFIX = 'repx_';

/** Whether a bearer is an API key rather than a JWT. */
export function isApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** A key's claims, or why it is refused, in words for the 401. */
export type KeyVerdict = { ok: true; claims: Claims } | { ok: false; message: string };

interface KeyRow {
  id: string;
  user_id: string;
  scopes: string[];
  allowed_ips: string[] | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

interface Known {
  row: KeyRow | undefined;
  allowed: net.BlockList | undefined;
  claims: Claims | undefined;
  readAt: number;
}

/** How long a key's row is trusted before it is read again. The database still refuses a revoked key at once (db/caller.ts). */
const FRESH_MS = 5_000;
/** The cache's bound, in keys (each entry is a few hundred bytes). */
const MAX_KNOWN = 10_000;
/** last_used_at is written at most this often per key. */
const TOUCH_MS = 60_000;

/**
 * Turns an API key into its owner's claims, with the key's id and scopes, as GoTrue's token would
 * carry a session's. The key is found by its SHA-256, read from the database once per FRESH_MS and
 * kept in memory between (a bot sends many requests a second: its lookup costs a hash and a map
 * read). What a key may do is decided in the database (api_keys.sql); here only whether it is a
 * key at all, still alive, and used from an address it allows.
 */
export class ApiKeys {
  private readonly known = new Map<string, Known>();
  private readonly touched = new Map<string, number>();

  constructor(private readonly db: Queryable) {}

  async verify(token: string, address: string): Promise<KeyVerdict> {
    if (token.length > 200) return { ok: false, message: 'This API key is not valid.' };
    const hash = crypto.createHash('sha256').update(token).digest();
    const key = hash.toString('base64');
    let entry = this.known.get(key);
    if (!entry || Date.now() - entry.readAt > FRESH_MS) {
      entry = await this.read(hash);
      if (this.known.size >= MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
      this.known.set(key, entry);
    }
    const { row, claims } = entry;
    if (!row || !claims) return { ok: false, message: 'This API key is not valid.' };
    if (row.revoked_at) return { ok: false, message: 'This API key has been revoked.' };
    if (row.expires_at && new Date(row.expires_at).getTime() <= Date.now())
      return { ok: false, message: `This API key expired on ${new Date(row.expires_at).toISOString()}.` };
    if (entry.allowed && !allows(entry.allowed, address))
      return { ok: false, message: `This API key may not be used from ${plainAddress(address)}.` };
    this.touch(row.id);
    return { ok: true, claims };
  }

  private async read(hash: Buffer): Promise<Known> {
    const [row] = await this.db.query<KeyRow>('select * from private.api_key_by_hash($1)', [hash]);
    if (!row) return { row: undefined, allowed: undefined, claims: undefined, readAt: Date.now() };
    return {
      row,
      allowed: row.allowed_ips ? blockList(row.allowed_ips) : undefined,
      // aal2: a key is made only past the second step, and acts for the person who made it.
      claims: Object.freeze({
        role: 'authenticated',
        sub: row.user_id,
        aal: 'aal2',
        amr: [],
        api_key_id: row.id,
        api_key_scopes: row.scopes,
        exp: Math.floor(Date.now() / 1000) + 3600,
      }),
      readAt: Date.now(),
    };
  }

  private touch(id: string): void {
    const last = this.touched.get(id) ?? 0;
    if (Date.now() - last < TOUCH_MS) return;
    this.touched.set(id, Date.now());
    if (this.touched.size > MAX_KNOWN) this.touched.delete(this.touched.keys().next().value!);
    this.db.query('select private.touch_api_key($1)', [id]).catch(() => this.touched.delete(id));
  }
}

function blockList(cidrs: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const [ip = '', bits] = cidr.split('/');
    const type = net.isIPv6(ip) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return list;
}

function allows(list: net.BlockList, address: string): boolean {
  const ip = plainAddress(address);
  if (net.isIPv4(ip)) return list.check(ip, 'ipv4');
  return net.isIPv6(ip) && list.check(ip, 'ipv6');
}
