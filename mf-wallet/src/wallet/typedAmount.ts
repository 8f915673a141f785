/**
 * A dollar amount as typed: null when left empty (the database says what is missing), NaN when it
 * does not read as a plain number ('1,000' or '12,50', which JSON would send as null, and which
 * would be refused as missing).
 */
export const typedAmount = (text: string): number | null => (text.trim() === '' ? null : Number(text));

export const NOT_AN_AMOUNT = 'Write the amount as a plain number of dollars, like 1000.00.';
