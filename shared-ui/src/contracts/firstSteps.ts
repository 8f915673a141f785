/** `my_first_steps()`: a new person's first steps, for the dashboard's checklist (supabase/schemas/portfolio.sql). */
export interface FirstSteps {
  /** Joined within 30 days: the only ones shown the list. */
  new: boolean;
  deposited: boolean;
  traded: boolean;
  connected: boolean;
  applied: boolean;
}
