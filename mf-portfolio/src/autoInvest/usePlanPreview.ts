import { usePausedQuery } from '@repex/shared-ui/platform';
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
  return usePausedQuery(valid ? `${amount}:${tokenId ?? 'index'}` : null, () => loadPreview(amount, tokenId), PAUSE_MS);
}
