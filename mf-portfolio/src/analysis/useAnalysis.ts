import { useSearchParams } from 'react-router';
import { useAppStore, useQuery } from '@repex/shared-ui/platform';
import { loadAnalysis, PERIODS, type Period } from './data';

/** The analysis for the period in the address (?period=90d; 30 days unless it says), and a way to change it. */
export function useAnalysis() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('period');
  const period: Period = PERIODS.find((p) => p.id === asked)?.id ?? '30d';
  const userId = useAppStore((s) => s.session?.user.id);
  const analysis = useQuery(() => loadAnalysis(period), [period, userId]);
  const choose = (next: Period) => setParams({ period: next }, { replace: true });
  // The last day holds the period's figures so far (the database's, since the opening).
  const last = analysis.data?.days.at(-1);
  return {
    period,
    choose,
    analysis,
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
