import Bowser from 'bowser';

/** 'Firefox 140 on Linux', from the browser's user agent (bowser knows them better than a regex would). */
export function deviceName(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const { browser, os } = Bowser.parse(userAgent);
  const name = browser.name ? `${browser.name}${browser.version ? ` ${browser.version.split('.')[0]}` : ''}` : '';
  if (!name) return userAgent.slice(0, 60);
  return os.name ? `${name} on ${os.name}` : name;
}
