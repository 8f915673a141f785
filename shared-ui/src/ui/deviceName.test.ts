import { deviceName } from './deviceName';

describe('deviceName', () => {
  it('names the browser, its major version and the system', () => {
    expect(
      deviceName(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.73 Safari/537.36',
      ),
    ).toBe('Chrome 156 on Linux');
    expect(
      deviceName(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.2 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari 18 on iOS');
    expect(deviceName('Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0')).toBe(
      'Firefox 140 on Linux',
    );
  });

  it('says so when the browser is unknown, and shows an unrecognised one as sent', () => {
    expect(deviceName(null)).toBe('Unknown browser');
    expect(deviceName('node')).toBe('node');
  });
});
