import { useEffect, useState } from 'react';
import type { InvestPreview } from '@repex/shared-ui/contracts';
import { loadPreview } from './data';

/** How long typing pauses before the database is asked. */
const PAUSE_MS = 300;

/**
 * The database's preview of a run (preview_invest_plan) for the amount and target being typed:
 * asked after a pause, and not at all while the amount is not a sum of dollars and cents.
 */
export function usePlanPreview(amountText: string, tokenId: string | null) {
  const amount = Number(amountText.trim());
  const valid = /^\d+(\.\d{1,2})?$/.test(amountText.trim()) && amount > 0;
  const key = valid ? `${amount}:${tokenId ?? 'index'}` : null;
  const [state, setState] = useState<{ key: string | null; preview?: InvestPreview; error?: string }>({ key: null });
  useEffect(() => {
    if (!key) return;
    let live = true;
    const timer = setTimeout(() => {
      loadPreview(amount, tokenId).then(
        (preview) => live && setState({ key, preview }),
        (err: unknown) => live && setState({ key, error: (err as { message?: string })?.message }),
      );
    }, PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // The key holds the amount and the target.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return state.key === key && key ? state : { key };
}
