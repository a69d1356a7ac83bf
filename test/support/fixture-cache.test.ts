/**
 * The fixture cache (fixture-cache.ts) makes a fixture once for a key, even when several test
 * processes ask at the same time with a cold cache (the lanes of `npm test`): a process that
 * finds another's lock waits for its file instead of making it too, and takes over a lock whose
 * process has ended. Each case uses a key of its own in a folder removed afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedFixture, cachedFixtureFile } from './fixture-cache.ts';

const FOLDER = `fixture-cache-test-${process.pid}`;
const children: ChildProcess[] = [];

/** A Node process that lives until killed, as another test lane making a fixture. */
function otherProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

afterAll(() => {
  for (const child of children) child.kill();
  rmSync(dirname(cachedFixtureFile(FOLDER, ['any'])), { recursive: true, force: true });
});

describe('cachedFixture', () => {
  it('makes a key once in a process, however many ask at once, and reads it back after', async () => {
    let makes = 0;
    const make = async () => { makes++; await new Promise((r) => setTimeout(r, 50)); return Uint8Array.of(1, 2, 3); };
    const key = ['once', Uint8Array.of(7)];
    const both = await Promise.all([cachedFixture(FOLDER, key, make), cachedFixture(FOLDER, key, make)]);
    expect(both).toEqual([Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 3)]);
    expect(await cachedFixture(FOLDER, key, make)).toEqual(Uint8Array.of(1, 2, 3));
    expect(makes).toBe(1);
    expect(existsSync(`${cachedFixtureFile(FOLDER, key)}.lock`), 'the lock is released').toBe(false);
  });

  it('waits for the file of another process that holds the lock, and does not make it too', async () => {
    const key = ['another process makes it'];
    const file = cachedFixtureFile(FOLDER, key);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.lock`, String(otherProcess().pid));
    let makes = 0;
    const asked = cachedFixture(FOLDER, key, async () => { makes++; return Uint8Array.of(9); });
    // The other process finishes a little later: its file, then its lock released.
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(`${file}.partial`, Uint8Array.of(4, 5));
    renameSync(`${file}.partial`, file);
    rmSync(`${file}.lock`);
    expect(await asked).toEqual(Uint8Array.of(4, 5));
    expect(makes).toBe(0);
  });

  it('takes over the lock of a process that ended without making the file', async () => {
    const key = ['its maker died'];
    const file = cachedFixtureFile(FOLDER, key);
    mkdirSync(dirname(file), { recursive: true });
    const ended = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => ended.on('exit', r));
    writeFileSync(`${file}.lock`, String(ended.pid));
    let makes = 0;
    expect(await cachedFixture(FOLDER, key, async () => { makes++; return Uint8Array.of(6); })).toEqual(Uint8Array.of(6));
    expect(makes).toBe(1);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});
