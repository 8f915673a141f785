import { useCallback, useEffect, useEffectEvent, useRef } from 'react';
import type { RealtimeChannel } from '@supabase/supabase-js';
import type { AccountNote, MarketTick } from '../../contracts/feed';
import { supabase } from '../supabase';
import { useAppStore } from '../store';

interface Listener {
  message: (event: string, payload: unknown) => void;
  /** The channel joined again after a gap (a reconnect, or the server's phx_error): messages may be lost. */
  resync: () => void;
}

interface Topic {
  channel: RealtimeChannel;
  listeners: Set<Listener>;
  joined: boolean;
  /** Pending removal once the last listener left (a screen change often brings one straight back). */
  idle?: ReturnType<typeof setTimeout>;
}

/** How long a topic nobody follows stays joined: moving between screens that follow it keeps one join. */
const LINGER_MS = 5_000;

const topics = new Map<string, Topic>();
let watchingAuth = false;

/** Joins a topic's channel; a channel the server closed (the session ended) is joined afresh while followed. */
function join(name: string, entry: Omit<Topic, 'channel'> & { channel?: RealtimeChannel }): Topic {
  const channel = supabase().channel(name, { config: { private: true } });
  entry.channel = channel;
  const topic = entry as Topic;
  channel
    .on('broadcast', { event: '*' }, (m) => {
      for (const l of topic.listeners) l.message(m.event, m.payload);
    })
    .subscribe((status) => {
      if (topic.channel !== channel) return;
      if (status === 'SUBSCRIBED') {
        if (topic.joined) for (const l of topic.listeners) l.resync();
        topic.joined = true;
      } else if (status === 'CLOSED' && topics.get(name) === topic) {
        setTimeout(() => topics.get(name) === topic && topic.listeners.size && join(name, topic), 1_000);
      }
    });
  return topic;
}

/**
 * Follows a private Realtime topic the database broadcasts to (supabase/schemas/realtime.sql):
 * one channel per topic in the browser, shared by every screen that follows it, joined as the
 * signed-in user (the topic's policies decide, once, at the join). Each time the channel is joined
 * again after the first (a lost connection, or the server telling a slow reader to resync), every
 * listener is told it may have missed messages. Returns what stops following.
 */
export function followTopic(name: string, listener: Listener): () => void {
  if (!watchingAuth) {
    watchingAuth = true;
    // Signed out: the next person joins as themselves.
    supabase().auth.onAuthStateChange((event) => event === 'SIGNED_OUT' && leaveAllTopics());
  }
  let topic = topics.get(name);
  if (!topic) topics.set(name, (topic = join(name, { listeners: new Set(), joined: false })));
  clearTimeout(topic.idle);
  topic.listeners.add(listener);
  const held = topic;
  return () => {
    held.listeners.delete(listener);
    if (held.listeners.size) return;
    held.idle = setTimeout(() => {
      if (held.listeners.size || topics.get(name) !== held) return;
      topics.delete(name);
      void supabase().removeChannel(held.channel);
    }, LINGER_MS);
  };
}

/** Leaves every followed topic at once. */
function leaveAllTopics(): void {
  for (const [name, topic] of topics) {
    clearTimeout(topic.idle);
    topics.delete(name);
    void supabase().removeChannel(topic.channel);
  }
}

/**
 * A screen's part of a topic: its messages of `event`, handed on together at most every
 * `everyMs` (a busy market re-renders a screen a few times a second, not once per trade), and
 * `onResync` after a gap, at a random moment within `spreadMs` so that a thousand screens joining
 * again after a restart do not read all at once.
 */
function useTopic<T>(
  name: string | null,
  event: string,
  onMessages: (messages: T[]) => void,
  onResync: () => void,
  { everyMs = 100, spreadMs = 2_000 } = {},
): void {
  const handle = useEffectEvent(onMessages);
  const resync = useEffectEvent(onResync);
  useEffect(() => {
    if (!name) return;
    let pending: T[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;
    let later: ReturnType<typeof setTimeout> | undefined;
    const stop = followTopic(name, {
      message: (e, payload) => {
        if (e !== event) return;
        pending.push(payload as T);
        flush ??= setTimeout(() => {
          flush = undefined;
          const batch = pending;
          pending = [];
          handle(batch);
        }, everyMs);
      },
      resync: () => {
        clearTimeout(later);
        later = setTimeout(() => resync(), Math.random() * spreadMs);
      },
    });
    return () => {
      clearTimeout(flush);
      clearTimeout(later);
      stop();
    };
  }, [name, event, everyMs, spreadMs]);
}

/**
 * The market's changes as they happen (private.tell_market): each token's figures, the levels of
 * its book a change touched, and its trades, so a screen patches what it shows rather than reading
 * it again. `onResync` says messages may have been missed: read again what the screen shows.
 */
export function useMarketFeed(onTicks: (ticks: MarketTick[]) => void, onResync: () => void): void {
  useTopic<MarketTick>('market', 'token', onTicks, onResync);
}

/**
 * A token's discussion as people post (discussion.sql): on 'discussion:<token>' each new public
 * post itself, on 'holders:<token>' only a room post's id (its holders read it as row-level
 * security lets them). `topic` null follows nothing.
 */
export function useDiscussionFeed<T>(topic: string | null, onPosts: (posts: T[]) => void, onResync: () => void): void {
  useTopic<T>(topic, 'post', onPosts, onResync, { everyMs: 250 });
}

/** The RepX index recorded a new level (an hour passed; perhaps a new day's basket). */
export function useIndexFeed(onLevel: () => void): void {
  useTopic<unknown>('market', 'index', () => onLevel(), onLevel);
}

/**
 * What of the signed-in user's account changed (private.tell_accounts): their orders, fills, cash
 * or alerts, on any screen and any tab. The notes name no figure: the screen reads its own rows.
 */
export function useAccountFeed(onNotes: (notes: AccountNote[]) => void, onResync: () => void = () => undefined): void {
  const userId = useAppStore((s) => s.session?.user.id);
  useTopic<AccountNote>(userId ? `account:${userId}` : null, 'account', onNotes, onResync);
}

/**
 * A read that must not follow every message: returns `soon`, which runs `run` once, at a random
 * moment within `jitterMs` and never within `minMs` of its last run, however often it is asked in
 * between (what a message cannot carry: a new token's row, an offering's demand).
 */
export function useSoon(run: () => void, minMs = 1_000, jitterMs = 1_000): () => void {
  const latest = useRef(run);
  const state = useRef<{ timer?: ReturnType<typeof setTimeout>; last: number }>({ last: 0 });
  useEffect(() => {
    latest.current = run;
  });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  return useCallback(() => {
    const s = state.current;
    if (s.timer) return;
    const wait = Math.max(0, s.last + minMs - Date.now()) + Math.random() * jitterMs;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      s.last = Date.now();
      latest.current();
    }, wait);
  }, [minMs, jitterMs]);
}
