/** The fraud rules' names as an admin reads them (supabase/schemas/fraud.sql raises the alerts). */
export const RULES: Record<string, string> = {
  wash_trading: 'Wash trading',
  ring: 'Ring',
  spoofing: 'Spoofing',
  cancel_ratio: 'Cancel-to-fill ratio',
  concentration: 'Concentration',
  new_account: 'New account, big trades',
  layering: 'Layering',
  linked_accounts: 'Linked accounts',
  pump_and_dump: 'Pump and dump',
  marking_close: 'Marking the close',
  trading_ahead: 'Trading ahead of own news',
};
export const SEVERITY = { high: 'down', medium: 'secondary', low: 'secondary' } as const;

/** Evidence ids, at most twelve of them named. */
export const ids = (label: string, list?: number[]) =>
  list?.length
    ? `${label} #${list.slice(0, 12).join(', #')}${list.length > 12 ? ` and ${list.length - 12} more` : ''}`
    : '';
