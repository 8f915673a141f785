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
  const days = analysis.data?.days ?? [];
  const first = days[0];
  const last = days.at(-1);
  const flows = days.slice(1).reduce((sum, d) => sum + d.flow, 0);
  return {
    period,
    choose,
    analysis,
    summary:
      first && last
        ? {
            value: last.value,
            /** What the period earned: the change in value less the money put in or taken out. */
            gain: last.value - first.value - flows,
            twr: last.twr,
            index: last.index_return,
          }
        : undefined,
  };
}
