/** An SQL identifier, quoted: the one place names that come from outside become SQL. */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
