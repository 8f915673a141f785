import { formatDate, formatTime } from '../format';
import { Muted } from './States';

/** A moment as the tables show it: the date, and the time in muted type (Nov 24, 2026 11:43 PM). */
export function DateTime({ iso }: { iso: string }) {
  return (
    <>
      {formatDate(iso)} <Muted>{formatTime(iso)}</Muted>
    </>
  );
}
