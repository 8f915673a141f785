import { useSearchParams } from 'react-router';
import { useAppStore, useQuery } from '@repex/shared-ui/platform';
import { loadAnalysis, PERIODS, type DayRange, type Period } from './data';

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The analysis for the period in the address (?period=90d, or ?period=custom&from=2026-10-01&to=2026-10-31;
 * 30 days unless it says), and ways to change it: a custom period starts as the last 30 UTC days.
 */
export function useAnalysis() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('period');
  const period: Period = PERIODS.find((p) => p.id === asked)?.id ?? '30d';
  const range: DayRange | undefined =
    period === 'custom' ? { from: params.get('from') ?? '', to: params.get('to') ?? '' } : undefined;
  const userId = useAppStore((s) => s.session?.user.id);
  const analysis = useQuery(() => loadAnalysis(period, range), [period, range?.from, range?.to, userId]);
  const chooseRange = (next: DayRange) => setParams({ period: 'custom', ...next }, { replace: true });
  const choose = (next: Period) =>
    next === 'custom'
      ? chooseRange({ from: utcDay(Date.now() - 30 * DAY_MS), to: utcDay(Date.now()) })
      : setParams({ period: next }, { replace: true });
  // Custom dates the database refused are said under them, and no earlier period's figures stand
  // beside them as if they were these dates'.
  const refusal = range && analysis.error ? analysis.error.message : undefined;
  const data = refusal ? undefined : analysis.data;
  // The last day holds the period's figures so far (the database's, since the opening).
  const last = data?.days.at(-1);
  return {
    period,
    range,
    choose,
    chooseRange,
    analysis,
    data,
    refusal,
    summary: last
      ? {
          value: last.value,
          /** What the period earned: the change in value less the money put in or taken out. */
          gain: last.gain,
          twr: last.twr,
          mwr: last.mwr,
          index: last.index_return,
        }
      : undefined,
  };
}
