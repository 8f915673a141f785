/** The auth server's words for a wrong or spent mailed code (GoTrue's), in the user's. */
export function codeMessage(message: string): string {
  return message === 'Token has expired or is invalid'
    ? 'The code is wrong or has expired. Check it, or send a new one.'
    : message;
}
