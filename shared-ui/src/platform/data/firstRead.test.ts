import { FirstRead } from './firstRead';

describe("a screen's first read", () => {
  it('asks once for every part, then each part on its own', async () => {
    const start = jest.fn(async () => ({ a: 1, b: 2 }));
    const first = new FirstRead(start);
    const own = jest.fn(async () => 9);
    expect(start).not.toHaveBeenCalled();
    await expect(first.load('a', (s) => s.a, own)).resolves.toBe(1);
    await expect(first.load('b', (s) => s.b, own)).resolves.toBe(2);
    expect(start).toHaveBeenCalledTimes(1);
    expect(own).not.toHaveBeenCalled();
    await expect(first.load('a', (s) => s.a, own)).resolves.toBe(9);
    expect(own).toHaveBeenCalledTimes(1);
  });

  it('reads each part on its own when there is no first read', async () => {
    const first = new FirstRead<{ a: number }>(null);
    await expect(
      first.load(
        'a',
        (s) => s.a,
        async () => 3,
      ),
    ).resolves.toBe(3);
  });
});
