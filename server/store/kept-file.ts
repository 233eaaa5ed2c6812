// What the embedded default keeps in DATA_DIR between starts without being told it: the session secret and
// the demo API key. One file each, the folder 0700 and the file 0600, written once with `wx` (two processes
// starting at once never overwrite each other's: the loser reads the winner's). docs/deploying.md says what
// a copy of DATA_DIR then exposes.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

/** The value kept in `dataDir/name`, undefined when there is none; a file too short to be one is an error saying how to mend it. */
export async function readKept(dataDir: string, name: string, minLength: number): Promise<string | undefined> {
  const file = path.join(dataDir, name);
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if (text.length < minLength) throw new Error(`${file} holds no usable value (fewer than ${minLength} characters): delete it to have a new one made`);
    return text;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
}

/** Keeps `value` in `dataDir/name` unless one is there already; returns the one kept (the winner's, if another process wrote first) and its file. */
export async function keep(dataDir: string, name: string, value: string, minLength: number): Promise<{ value: string; file: string }> {
  const file = path.join(dataDir, name);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // mkdir's mode is masked by the umask and leaves an existing folder as it was: set it outright.
  await chmod(dataDir, 0o700);
  try {
    await writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    const winner = await readKept(dataDir, name, minLength);
    if (winner !== undefined) return { value: winner, file };
    throw error;
  }
  await chmod(file, 0o600);
  return { value, file };
}

/** The simulator's demo API key, kept like the session secret so an open tab keeps working across a restart. */
export const DEMO_KEY_FILE = 'demo-api-key';
/** Shorter is not a key the simulator made (they are 64 characters). */
export const DEMO_KEY_MIN_LENGTH = 16;
