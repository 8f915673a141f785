import { useEffect, useState } from 'react';

/** The time now, in milliseconds, renewed every `everyMs` while `running`: what a countdown reads. */
export function useNow(everyMs = 1000, running = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, running]);
  return now;
}
