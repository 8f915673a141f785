import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { goLive, liveRelease, newReleaseId, previousRelease, prune, releaseIds } from './releases';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'repex-releases-'));
  for (const id of ['20261101T000000000Z-a', '20261102T000000000Z-b', '20261103T000000000Z-c', '20261104T000000000Z-d'])
    fs.mkdirSync(path.join(root, id));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('releases', () => {
  it('names a release by its time, so ids sort as they were built', () => {
    const earlier = newReleaseId(new Date('2026-11-26T10:00:00.000Z'));
    const later = newReleaseId(new Date('2026-11-26T10:00:00.001Z'));
    expect(earlier).toMatch(/^20261126T100000000Z-/);
    expect([later, earlier].sort()).toEqual([earlier, later]);
  });

  it('switches the live release, and knows the one before it', () => {
    expect(liveRelease(root)).toBeNull();
    goLive(root, '20261104T000000000Z-d');
    expect(liveRelease(root)).toBe('20261104T000000000Z-d');
    expect(previousRelease(root)).toBe('20261103T000000000Z-c');
    goLive(root, '20261102T000000000Z-b');
    expect(previousRelease(root)).toBe('20261101T000000000Z-a');
    expect(() => goLive(root, 'no-such-release')).toThrow(/no release no-such-release/);
    expect(liveRelease(root)).toBe('20261102T000000000Z-b');
    expect(fs.readdirSync(root).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('prunes the oldest beyond the count kept, never the live release nor the one before it', () => {
    goLive(root, '20261102T000000000Z-b'); // rolled back
    expect(prune(root, 1)).toEqual(['20261103T000000000Z-c']);
    expect(releaseIds(root)).toEqual(['20261101T000000000Z-a', '20261102T000000000Z-b', '20261104T000000000Z-d']);
    expect(prune(root, 5)).toEqual([]);
  });
});
